/**
 * What holdfast reads from a PostgreSQL URL without loading the driver: config and start-up checks use
 * these, so a SQLite install never loads `pg`.
 */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value.trim());
}

/** The URL as it may be logged or shown: the password replaced. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** Where the server is, for messages: `host:port/database`. */
export function postgresTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  } catch {
    return 'the PostgreSQL server';
  }
}
