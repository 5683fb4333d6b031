export interface SlackDateOptions {
  /** IANA zone for the fallback text shown by clients that cannot render the date token. */
  readonly timeZone?: string;
  /** Slack's token template; the default reads "Mar 3 at 2:05 PM" in the viewer's own zone. */
  readonly format?: string;
}

const DEFAULT_FORMAT = '{date_short_pretty} at {time}';

function zonedFallback(ms: number, timeZone: string): string | undefined {
  try {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(new Date(ms));
    const part = (type: Intl.DateTimeFormatPartTypes): string =>
      parts.find((p) => p.type === type)?.value ?? '';
    return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${timeZone}`;
  } catch (error) {
    // An unknown zone name is a configuration slip, not a reason to fail the card: fall back to UTC.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The plain fallback for a timestamp: ISO in UTC, or local wall time when a zone is given. */
export function fallbackTime(ms: number, timeZone?: string): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  const zoned = timeZone === undefined ? undefined : zonedFallback(ms, timeZone);
  return zoned ?? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `<!date^UNIX^{tokens}|fallback>`: each reader sees the time in their own zone and locale; the fallback
 * covers notifications and old clients.
 */
export function formatSlackDate(ms: number, options: SlackDateOptions = {}): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  const seconds = Math.floor(ms / 1000);
  return `<!date^${seconds}^${options.format ?? DEFAULT_FORMAT}|${fallbackTime(ms, options.timeZone)}>`;
}
