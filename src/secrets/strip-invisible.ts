/**
 * Characters that render as nothing (zero-width space, joiners, word joiner, BOM, soft hyphen, variation
 * selectors, invisible operators, Unicode tags) or only steer direction (bidi marks, embeddings, isolates).
 * One of them inside a token hides it from every pattern while the reader, or a shell, still sees it whole.
 */
const INVISIBLE_SOURCE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each character is removed on its own; none combines.
  /[\u00AD\u034F\u061C\u115F\u1160\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]|\uDB40[\uDC00-\uDDEF]/;
const INVISIBLE = new RegExp(INVISIBLE_SOURCE.source, 'g');

export interface VisibleText {
  /** The text with every invisible character removed. */
  readonly text: string;
  /**
   * For each index of `text`, the index of the same character in the original; one extra entry past the
   * end. Undefined when nothing was removed (the two texts are the same).
   */
  readonly origin: Int32Array | undefined;
}

/** Removes invisible characters, remembering where each kept character came from. */
export function stripInvisible(original: string): VisibleText {
  if (!INVISIBLE_SOURCE.test(original)) return { text: original, origin: undefined };
  let text = '';
  const origin: number[] = [];
  let from = 0;
  for (const match of original.matchAll(INVISIBLE)) {
    text += original.slice(from, match.index);
    for (let index = from; index < match.index; index += 1) origin.push(index);
    from = match.index + match[0].length;
  }
  text += original.slice(from);
  for (let index = from; index < original.length; index += 1) origin.push(index);
  origin.push(original.length);
  return { text, origin: Int32Array.from(origin) };
}
