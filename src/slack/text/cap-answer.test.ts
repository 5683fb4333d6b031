import { describe, expect, it } from 'vitest';
import { capAnswer } from './cap-answer.js';
import { planAnswerMessages } from './split-message.js';

describe('capAnswer', () => {
  it('leaves an answer within the limit alone', () => {
    expect(capAnswer('short', 100)).toBe('short');
  });

  it('cuts a long answer and says how long it was', () => {
    const capped = capAnswer('word '.repeat(100), 40);
    expect(capped.startsWith('word word word')).toBe(true);
    expect(capped).toContain(
      '_… the answer was cut here: it ran to 500 characters. Ask for the part you need._',
    );
  });

  it('closes a code fence the cut left open', () => {
    const capped = capAnswer(`\`\`\`\n${'x\n'.repeat(100)}\`\`\``, 50);
    expect(capped.split('```').length - 1).toBe(2);
  });

  it('keeps a five-megabyte answer to a handful of messages', () => {
    const huge = 'all work and no play makes jack a dull boy. '.repeat(120_000);
    expect(huge.length).toBeGreaterThan(5_000_000);
    expect(planAnswerMessages(capAnswer(huge)).length).toBeLessThanOrEqual(8);
  });
});
