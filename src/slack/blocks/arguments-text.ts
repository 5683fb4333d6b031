import { redactKnownPatterns } from '../../secrets/index.js';
import { neutraliseCodeFences } from '../text/escape-mrkdwn.js';
import { escapeWithin } from '../text/truncate-text.js';
import { escapeInvisible } from './escape-invisible.js';

/**
 * Arguments as they go inside a code block: secrets redacted, invisible characters escaped, fences
 * neutralised, trailing whitespace dropped. Not yet mrkdwn-escaped: the cutting does that, so the
 * budget is counted in what Slack receives.
 */
export function codeBlockArguments(argumentsJson: string): string {
  return neutraliseCodeFences(escapeInvisible(redactKnownPatterns(argumentsJson)).replace(/\s+$/, ''));
}

/**
 * The arguments on one line, for lists: the JSON re-serialised without indentation (string values keep
 * every character; collapsing whitespace would change what a reader thinks will run).
 */
export function compactArguments(argumentsJson: string): string {
  let compact = argumentsJson;
  try {
    compact = JSON.stringify(JSON.parse(argumentsJson)) ?? argumentsJson;
  } catch (error) {
    // Not JSON: shown as it is.
    if (!(error instanceof SyntaxError)) throw error;
  }
  return codeBlockArguments(compact);
}

export interface ArgumentChunks {
  /** Each at most `chunkMax` characters once mrkdwn-escaped, in order. */
  readonly chunks: readonly string[];
  /** Raw characters that did not fit in `maxChunks` chunks; 0 when everything is shown. */
  readonly omitted: number;
}

/** Cuts prepared arguments into escaped pieces for consecutive code blocks, at most `maxChunks` of them. */
export function chunkArguments(prepared: string, chunkMax: number, maxChunks: number): ArgumentChunks {
  const chunks: string[] = [];
  let rest = prepared;
  while (rest !== '' && chunks.length < maxChunks) {
    const slice = escapeWithin(rest, chunkMax);
    if (slice.omitted === rest.length) break;
    chunks.push(slice.text);
    rest = rest.slice(rest.length - slice.omitted);
  }
  return { chunks, omitted: rest.length };
}
