import { modelNoteMark } from '../../agent/not-run-result.js';

/**
 * An answer without what a tool result marked as for the model only: a model that quotes a result whole
 * must not put its instructions ("Tell the user…") in the thread. From the mark to the end of its line
 * goes, and the line with it when nothing is left of it; the rest of the answer stands.
 */
export function withoutModelNotes(text: string): string {
  if (!text.includes(modelNoteMark)) return text;
  const kept = text
    .split('\n')
    .flatMap((line) => {
      const at = line.indexOf(modelNoteMark);
      if (at === -1) return [line];
      const before = line.slice(0, at).trimEnd();
      return before === '' ? [] : [before];
    })
    .join('\n')
    .trim();
  // An answer that is nothing but a note is left whole rather than posted empty.
  return kept === '' ? text : kept;
}
