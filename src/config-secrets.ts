import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors.js';
import {
  type ConfiguredSecret,
  DEFAULT_MINIMUM_SECRET_LENGTH,
  isSecretVariableName,
} from './secrets/index.js';

/** The variables that may instead name a file holding the value (`SLACK_BOT_TOKEN_FILE=/run/secrets/…`). */
const FILE_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'OPENAI_API_KEY',
  'HOLDFAST_SQL_URL',
  'HOLDFAST_METRICS_TOKEN',
] as const;

/** How each configured secret is named where it is redacted. */
const SECRET_KINDS: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'slack bot token',
  SLACK_APP_TOKEN: 'slack app token',
  SLACK_SIGNING_SECRET: 'slack signing secret',
  OPENAI_API_KEY: 'openai key',
  HOLDFAST_METRICS_TOKEN: 'metrics token',
};

/**
 * Resolves `X_FILE` into `X` (the file's content, trailing newline trimmed), so a deployment can keep
 * secrets out of the process environment, which `/proc/<pid>/environ` shows to any command it runs.
 */
export function resolveFileVariables(
  rawEnv: Readonly<Record<string, string | undefined>>,
  cwd: string,
  readFile: (file: string) => string,
): { env: Record<string, string | undefined>; fromFile: ReadonlySet<string> } {
  const env: Record<string, string | undefined> = { ...rawEnv };
  const fromFile = new Set<string>();
  const problems: string[] = [];
  for (const name of FILE_VARIABLES) {
    const fileVariable = `${name}_FILE`;
    const file = rawEnv[fileVariable]?.trim();
    if (!file) continue;
    if (rawEnv[name]?.trim()) {
      problems.push(`${name} and ${fileVariable} are both set; set only one of them.`);
      continue;
    }
    let content: string;
    try {
      content = readFile(path.resolve(cwd, file));
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unreadable');
      problems.push(`${fileVariable}: cannot read ${file} (${reason}).`);
      continue;
    }
    const value = content.replace(/\r?\n$/, '');
    if (value.trim() === '') {
      problems.push(`${fileVariable}: ${file} is empty.`);
      continue;
    }
    env[name] = value;
    fromFile.add(name);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`, problems);
  }
  return { env, fromFile };
}

export function readUtf8(file: string): string {
  return readFileSync(file, 'utf8');
}

/**
 * The secrets to redact, and the environment tools may see without them. Values come from the resolved
 * environment, so a secret read from a file is covered exactly like one set directly.
 */
export function configuredSecrets(env: Readonly<Record<string, string | undefined>>): {
  secrets: ConfiguredSecret[];
  toolEnv: Record<string, string | undefined>;
} {
  const secrets: ConfiguredSecret[] = [];
  const add = (name: string, value: string | undefined) => {
    const trimmed = value?.trim() ?? '';
    // Shorter values would redact ordinary words; the redactor skips them, and so does the filter below.
    if (trimmed.length < DEFAULT_MINIMUM_SECRET_LENGTH) return;
    if (!secrets.some((secret) => secret.value === trimmed)) secrets.push({ name, value: trimmed });
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const kind = SECRET_KINDS[name];
    if (kind) add(kind, value);
    else if (isSecretVariableName(name)) add(name, value);
    for (const password of urlPasswords(value)) {
      add(name === 'HOLDFAST_SQL_URL' ? 'database password' : `${name} password`, password);
    }
  }
  const toolEnv: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretVariableName(name) || name in SECRET_KINDS || name.endsWith('_FILE'))
      continue;
    if (secrets.some((secret) => value.includes(secret.value))) continue;
    toolEnv[name] = value;
  }
  return { secrets, toolEnv };
}

/**
 * `HOLDFAST_TOOL_ENV` as given, once every name is known to hold no secret: the operator asked for these
 * to reach commands, so one that cannot is an error rather than a silent omission.
 */
export function checkToolEnvNames(
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  secrets: readonly ConfiguredSecret[],
): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (name.endsWith('_FILE')) {
      problems.push(`HOLDFAST_TOOL_ENV lists ${name}: a *_FILE variable points at a secret.`);
    } else if (name in SECRET_KINDS || (FILE_VARIABLES as readonly string[]).includes(name)) {
      problems.push(`HOLDFAST_TOOL_ENV lists ${name}, one of holdfast's own secrets.`);
    } else if (isSecretVariableName(name)) {
      problems.push(`HOLDFAST_TOOL_ENV lists ${name}, which is named like a secret.`);
    } else if (value !== undefined && secrets.some((secret) => value.includes(secret.value))) {
      problems.push(`HOLDFAST_TOOL_ENV lists ${name}, whose value holds a secret (a password or token).`);
    }
  }
  if (problems.length > 0) {
    const fix = 'Secrets are never passed to tools: remove it from HOLDFAST_TOOL_ENV.';
    const issues = problems.map((problem) => `${problem} ${fix}`);
    throw new ConfigError(`Invalid configuration:\n  ${issues.join('\n  ')}`, issues);
  }
  return [...new Set(names)];
}

/** Passwords inside URLs (`postgres://app:<password>@db/app`), as written and decoded. */
function urlPasswords(value: string): string[] {
  const passwords: string[] = [];
  for (const match of value.matchAll(/[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/g)) {
    const raw = match[1]!;
    passwords.push(raw);
    try {
      passwords.push(decodeURIComponent(raw));
    } catch {
      // Not valid percent-encoding: the raw form is all there is.
    }
  }
  return passwords;
}
