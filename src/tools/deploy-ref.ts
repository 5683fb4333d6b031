/**
 * Why a deploy ref is refused, or undefined for one that looks like a git branch, tag or commit. The ref
 * reaches the operator's command as HOLDFAST_DEPLOY_REF, often unquoted (`./deploy.sh $HOLDFAST_DEPLOY_REF`),
 * so anything a shell or a command-line parser would act on is refused: a leading "-" (an option such as
 * `--upload-pack=…`), shell syntax, whitespace, globs and `..`.
 */
export function deployRefProblem(ref: string): string | undefined {
  if (ref.startsWith('-')) return 'it starts with "-", which a command would read as an option';
  const shellCharacter = /[\s;&|$()<>`'"\\*?[\]{}~!#]/.exec(ref)?.[0];
  if (shellCharacter !== undefined) {
    const shown = /[\r\n]/.test(shellCharacter)
      ? 'a line break'
      : shellCharacter === '"'
        ? `'"'`
        : `"${shellCharacter === '\t' ? '\\t' : shellCharacter}"`;
    return `it holds ${shown}, which a shell would interpret`;
  }
  if (ref.includes('..')) {
    return 'it holds "..", which git reads as a range and a path reads as the parent directory';
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/.test(ref)) {
    return 'it is not a branch, tag or commit name (letters, digits, ".", "_", "/" and "-", starting with a letter or digit, at most 200 characters)';
  }
  if (
    ref.includes('//') ||
    ref.endsWith('/') ||
    ref.endsWith('.') ||
    ref.endsWith('.lock') ||
    ref.includes('/.')
  ) {
    return 'it is not a valid git ref name (no "//", no part starting with ".", no trailing "/", "." or ".lock")';
  }
  return undefined;
}

export function describeRefRefusal(ref: string, problem: string): string {
  return `Refused ref ${JSON.stringify(ref)}: ${problem}. Use a branch, tag or commit name.`;
}

/** Service names as HOLDFAST_DEPLOY_SERVICES accepts them; they reach the command as HOLDFAST_DEPLOY_SERVICE. */
export const deployServiceName = /^[a-z0-9][a-z0-9_-]{0,63}$/;
