/** A call whose tool started and whose result never came: it may have acted, so it is not run again. */
function interrupted(why: string): string {
  return (
    `interrupted: outcome unknown. ${why}, and it is not safe to run it again automatically. ` +
    'Tell the user, and ask them to check the outcome before retrying.'
  );
}

export const interruptedResult = interrupted('The process stopped while this tool was running');

/** A call whose tool started in a turn that then failed before the result was saved. */
export function interruptedByFailure(code: string): string {
  return interrupted(`The turn failed (${code}) after this tool started and before its result was saved`);
}

/**
 * The result of a call that did not run. The first line says what happened, in words fit to pass on to
 * people; what the model should do about it follows on its own line, marked, so that a reply built from
 * the result (the demo model's, or a model quoting it) never puts instructions meant for the model in
 * the thread.
 */
export function notRunResult(reason: string, guidance?: string): string {
  const said = `Not run: ${reason.replace(/\s*\n\s*/g, ' ')}`;
  return guidance ? `${said}\n${modelNoteMark} ${guidance}` : said;
}

/** Starts the line of a result that is for the model only. */
export const modelNoteMark = '[for the assistant only]';
