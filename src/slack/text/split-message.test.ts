import { describe, expect, it } from 'vitest';
import { findBlockKitViolations } from '../blocks/block-kit-limits.js';
import type { SlackMessage } from '../blocks/slack-message.js';
import { buildAnswerMessages, splitForSlack } from './split-message.js';

function fenceCount(text: string): number {
  return text.split('```').length - 1;
}

function sectionTexts(message: SlackMessage): string[] {
  return message.blocks.map((block) => {
    if (block.type !== 'section') throw new Error(`expected a section, got ${block.type}`);
    return block.text?.text ?? '';
  });
}

describe('splitForSlack', () => {
  it('returns short text as one chunk', () => {
    expect(splitForSlack('hello *world*')).toEqual(['hello *world*']);
  });

  it('returns nothing for blank text', () => {
    expect(splitForSlack(' \n\n ')).toEqual([]);
  });

  it('splits on paragraph boundaries first', () => {
    const a = 'a'.repeat(60);
    const b = 'b'.repeat(60);
    expect(splitForSlack(`${a}\n\n${b}`, { maxChars: 100 })).toEqual([a, b]);
  });

  it('falls back to line, then word boundaries', () => {
    const lines = ['x'.repeat(50), 'y'.repeat(50), 'z'.repeat(50)].join('\n');
    expect(splitForSlack(lines, { maxChars: 120 })).toEqual([
      `${'x'.repeat(50)}\n${'y'.repeat(50)}`,
      'z'.repeat(50),
    ]);
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const chunks = splitForSlack(words, { maxChars: 60 });
    expect(chunks.join(' ')).toBe(words);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(60);
  });

  it('hard-splits a single word longer than the limit', () => {
    const chunks = splitForSlack('q'.repeat(250), { maxChars: 100 });
    expect(chunks.join('')).toBe('q'.repeat(250));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100);
  });

  it('closes a code fence at a chunk end and reopens it in the next chunk', () => {
    const code = Array.from({ length: 40 }, (_, i) => `line ${i} of the code`).join('\n');
    const chunks = splitForSlack(`intro\n\`\`\`\n${code}\n\`\`\`\noutro`, { maxChars: 200 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(200);
      expect(fenceCount(chunk) % 2).toBe(0);
    }
    expect(chunks[1]?.startsWith('```\n')).toBe(true);
    const rejoined = chunks.join('\n').replace(/\n```\n```\n/g, '\n');
    expect(rejoined).toBe(`intro\n\`\`\`\n${code}\n\`\`\`\noutro`);
  });

  it('moves an opening fence that would end a chunk into the next one', () => {
    const text = `${'p'.repeat(80)}\n\`\`\`\n${'c'.repeat(60)}\n\`\`\``;
    const chunks = splitForSlack(text, { maxChars: 100 });
    expect(chunks[0]).toBe('p'.repeat(80));
    expect(chunks[1]).toBe(`\`\`\`\n${'c'.repeat(60)}\n\`\`\``);
  });

  it('never cuts an entity or a link token in half', () => {
    const text = `${'a'.repeat(85)} <https://example.com/path|a long link label here> &amp; tail`;
    const chunks = splitForSlack(text, { maxChars: 100 });
    expect(chunks.some((chunk) => chunk.includes('<https://example.com/path|a long link label here>'))).toBe(
      true,
    );
    for (const chunk of chunks) expect(chunk).not.toMatch(/&am$|&a$|<[^>]*$/);
  });
});

describe('buildAnswerMessages', () => {
  it('puts a short answer in one message with one section', () => {
    const [message, ...rest] = buildAnswerMessages('The disk is *87%* full.');
    expect(rest).toEqual([]);
    expect(message).toEqual({
      text: 'The disk is *87%* full.',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'The disk is *87%* full.' } }],
    });
  });

  it('never sends an empty section', () => {
    const messages = buildAnswerMessages('   ');
    expect(messages).toHaveLength(1);
    expect(findBlockKitViolations(messages[0] ?? { blocks: [] })).toEqual([]);
  });

  it('redacts secrets before posting', () => {
    const token = ['xoxb', '1111111111', 'abcdefghijklmnop'].join('-');
    const [message] = buildAnswerMessages(`the token is ${token}`);
    expect(JSON.stringify(message)).not.toContain(token);
    expect(message?.text).toBe('the token is [redacted slack token]');
  });

  it('turns a 60 KB answer into several messages that all fit Block Kit limits, in order', () => {
    const paragraph = (i: number): string =>
      `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(12)}\n\`\`\`\n${'code line\n'.repeat(8)}\`\`\``;
    let answer = '';
    for (let i = 0; answer.length < 60_000; i += 1) answer += `${paragraph(i)}\n\n`;
    const messages = buildAnswerMessages(answer);
    expect(messages.length).toBeGreaterThan(5);
    for (const message of messages) {
      expect(findBlockKitViolations(message)).toEqual([]);
      expect(message.blocks.length).toBeLessThanOrEqual(50);
      expect(message.text.length).toBeLessThanOrEqual(4000);
      for (const text of sectionTexts(message)) {
        expect(text.length).toBeLessThanOrEqual(3000);
        expect(fenceCount(text) % 2).toBe(0);
      }
    }
    const all = messages.flatMap(sectionTexts).join('\n');
    const order = [...all.matchAll(/Paragraph (\d+):/g)].map((match) => Number(match[1]));
    expect(order).toEqual(order.map((_, i) => i));
  });

  it('splits one enormous unbroken line without rejecting it', () => {
    const messages = buildAnswerMessages('z'.repeat(60_000));
    for (const message of messages) expect(findBlockKitViolations(message)).toEqual([]);
    expect(messages.flatMap(sectionTexts).join('')).toBe('z'.repeat(60_000));
  });
});
