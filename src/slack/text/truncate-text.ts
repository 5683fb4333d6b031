import { escapeMrkdwn } from './escape-mrkdwn.js';

const ELLIPSIS = '…';
const MAX_TOKEN = 3100;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Backs a cut position off so it never splits a surrogate pair. */
function surrogateSafe(text: string, cut: number): number {
  if (cut > 0 && cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) return cut - 1;
  return cut;
}

/**
 * Backs a cut position off so it never lands inside an entity (`&amp;`) or a Slack token (`<@U…>`,
 * `<url|text>`): half a token renders as garbage or, worse, as a half-open link.
 */
export function markupSafeCut(text: string, cut: number): number {
  let at = surrogateSafe(text, Math.max(0, Math.min(cut, text.length)));
  const amp = text.lastIndexOf('&', at - 1);
  if (amp !== -1 && at - amp < 6) {
    const semi = text.indexOf(';', amp);
    if (semi === -1 || semi >= at) at = amp;
  }
  // In mrkdwn every literal `<` is escaped, so an open `<` is a token; a bound keeps plain text sane.
  const open = text.lastIndexOf('<', at - 1);
  if (open > 0 && at - open <= MAX_TOKEN && text.lastIndexOf('>', at - 1) < open) at = open;
  return at;
}

/** Shortens plain or mrkdwn text to at most `max` characters, ending with an ellipsis when cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return ELLIPSIS.slice(0, Math.max(0, max));
  return text.slice(0, markupSafeCut(text, max - ELLIPSIS.length)) + ELLIPSIS;
}

/** Collapses runs of whitespace (newlines included) into single spaces. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export interface EscapedSlice {
  /** The escaped text, at most the requested number of characters. */
  readonly text: string;
  /** How many characters of the raw input did not fit. */
  readonly omitted: number;
}

/**
 * Escapes `raw` for mrkdwn and keeps as much of it as fits in `maxEscaped` characters. The budget is
 * measured after escaping (that is what Slack counts) while `omitted` counts raw characters (that is
 * what a reader would miss).
 */
export function escapeWithin(raw: string, maxEscaped: number): EscapedSlice {
  const whole = escapeMrkdwn(raw);
  if (whole.length <= maxEscaped) return { text: whole, omitted: 0 };
  let length = 0;
  let consumed = 0;
  while (consumed < raw.length) {
    const code = raw.charCodeAt(consumed);
    const width = isHighSurrogate(code) && consumed + 1 < raw.length ? 2 : 1;
    const char = raw.slice(consumed, consumed + width);
    const escapedWidth = char === '&' ? 5 : char === '<' || char === '>' ? 4 : width;
    if (length + escapedWidth > maxEscaped) break;
    length += escapedWidth;
    consumed += width;
  }
  return { text: escapeMrkdwn(raw.slice(0, consumed)), omitted: raw.length - consumed };
}

/** Escapes and shortens one piece of untrusted text, ending with an ellipsis when cut. */
export function escapeAndTruncate(raw: string, maxEscaped: number): string {
  const slice = escapeWithin(raw, maxEscaped);
  if (slice.omitted === 0) return slice.text;
  return escapeWithin(raw, maxEscaped - ELLIPSIS.length).text + ELLIPSIS;
}
