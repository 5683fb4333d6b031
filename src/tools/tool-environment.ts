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

export function toolEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of inherited) {
    const value = env[name];
    if (value !== undefined && !secretLooking.test(name)) result[name] = value;
  }
  return { ...result, ...extra };
}
