import { markupSafeCut } from './truncate-text.js';

/**
 * The longest answer posted to a thread, in characters of mrkdwn: about seven messages. A model (or a
 * hostile endpoint behind OPENAI_BASE_URL) can produce megabytes; a thread should never receive a
 * thousand posts for one question.
 */
const answerLimit = 20_000;

/** Cuts an over-long answer at a safe place and says so, in words for the person reading the thread. */
export function capAnswer(mrkdwn: string, limit = answerLimit): string {
  if (mrkdwn.length <= limit) return mrkdwn;
  const cut = markupSafeCut(mrkdwn, limit);
  const kept = mrkdwn.slice(0, cut > 0 ? cut : limit).replace(/\s+$/, '');
  const fences = kept.split('```').length - 1;
  return (
    `${kept}${fences % 2 === 1 ? '\n```' : ''}\n\n` +
    `_… the answer was cut here: it ran to ${mrkdwn.length.toLocaleString('en-US')} characters. ` +
    'Ask for the part you need._'
  );
}
