/**
 * Characters that change how text reads without showing themselves: format characters (zero-width
 * spaces and joiners, bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069,
 * tag characters), everything Unicode calls default-ignorable (variation selectors, Hangul fillers),
 * controls other than newline and tab (C0, DEL, C1: a carriage return can hide the start of a line),
 * line and paragraph separators, spaces other than the ASCII one (a no-break space splits a shell word
 * where a reader sees a space), the blank braille pattern, and unpaired surrogates.
 */
const INVISIBLE =
  /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Cs}\u2800]|(?! )\p{Zs}|(?![\n\t])\p{Cc}/gu;

function codePointEscape(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * Shows every invisible or direction-changing character as its escape (`\u202E`), so an approver reads
 * what will run rather than what it was made to look like. Applied to arguments, summaries and reasons
 * wherever a request is shown, before any other escaping or cutting.
 */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, codePointEscape);
}
