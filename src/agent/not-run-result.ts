/** Starts the line of a result that is for the model only. */
export const modelNoteMark = '[for the assistant only]';

/**
 * A call whose tool started and whose result never came: it may have acted, so it is not run again. The
 * first line says so in words for people; what the model should do follows, marked as for it only.
 */
function interrupted(why: string, forModel = ''): string {
  return (
    `interrupted: outcome unknown. ${why}, so it may or may not have done its work. ` +
    'It was not run again, since running it twice might not be safe.\n' +
    `${modelNoteMark} ${forModel}Tell the user, and ask them to check the outcome before retrying.`
  );
}

export const interruptedResult = interrupted('holdfast restarted while this was running');

/** A call whose tool started in a turn that then failed before the result was saved. */
export function interruptedByFailure(code: string): string {
  return interrupted(
    'The request failed while this was running, before its result was saved',
    `The turn failed with ${code}. `,
  );
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
