import { isSecretVariableName } from '../secrets/index.js';

/** Variables a command may inherit; everything else, holdfast's own tokens first, stays behind. */
const inherited = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
];
const secretLooking = /TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * The environment a command runs with: the allow-list above, the variables the operator named in
 * `HOLDFAST_TOOL_ENV` (`passThrough`; config refuses secret ones, and they are skipped here again), and
 * the tool's own `extra`.
 */
export function toolEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
  passThrough: readonly string[] = [],
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of inherited) {
    const value = env[name];
    if (value !== undefined && !secretLooking.test(name)) result[name] = value;
  }
  for (const name of passThrough) {
    const value = env[name];
    if (value !== undefined && !isSecretVariableName(name) && !name.endsWith('_FILE')) result[name] = value;
  }
  return { ...result, ...extra };
}
