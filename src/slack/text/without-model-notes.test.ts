import { describe, expect, it } from 'vitest';
import { withoutModelNotes } from './without-model-notes.js';

describe('withoutModelNotes', () => {
  it('leaves an answer with no note as it is', () => {
    expect(withoutModelNotes('The disk is 41% full.\n\nAnything else?')).toBe(
      'The disk is 41% full.\n\nAnything else?',
    );
  });

  it('drops a quoted note line, and the end of a line a note starts inside', () => {
    const answer =
      'It was not run: denied by bob.\n[for the assistant only] Do not retry it unless the user asks again.\n\n' +
      'The restart: interrupted: outcome unknown. [for the assistant only] Tell the user, and ask them.';
    expect(withoutModelNotes(answer)).toBe(
      'It was not run: denied by bob.\n\nThe restart: interrupted: outcome unknown.',
    );
  });
});
