import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  assertWithinBlockKitLimits,
  BlockKitLimitError,
  findBlockKitViolations,
  measureBlockText,
} from './block-kit-limits.js';

function section(text: string, blockId?: string): KnownBlock {
  return {
    type: 'section',
    text: { type: 'mrkdwn', text },
    ...(blockId === undefined ? {} : { block_id: blockId }),
  };
}

const button = (overrides: Record<string, unknown> = {}): KnownBlock =>
  ({
    type: 'actions',
    elements: [
      { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'Go' }, value: 'v', ...overrides },
    ],
  }) as KnownBlock;

describe('findBlockKitViolations', () => {
  it('accepts a well-formed message', () => {
    expect(findBlockKitViolations({ text: 'hi', blocks: [section('hello'), button()] })).toEqual([]);
  });

  it.each([
    [
      'a section over 3000 characters',
      { text: 'x', blocks: [section('s'.repeat(3001))] },
      'blocks[0] (section).text is 3001 characters (max 3000)',
    ],
    ['an empty section', { text: 'x', blocks: [section(' ')] }, 'blocks[0] (section).text is empty'],
    [
      '51 blocks in a message',
      { text: 'x', blocks: Array.from({ length: 51 }, () => section('a')) },
      '51 blocks (max 50 in a message)',
    ],
    [
      '101 blocks in a home view',
      { type: 'home', blocks: Array.from({ length: 101 }, () => ({ type: 'divider' }) as KnownBlock) },
      '101 blocks (max 100 in a home)',
    ],
    [
      'a long header',
      {
        text: 'x',
        blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } } as KnownBlock],
      },
      'blocks[0] (header).text is 151 characters (max 150)',
    ],
    [
      'a mrkdwn header',
      {
        text: 'x',
        blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } } as unknown as KnownBlock],
      },
      'blocks[0] (header).text must be plain_text, got mrkdwn',
    ],
    [
      '11 fields',
      {
        text: 'x',
        blocks: [
          {
            type: 'section',
            fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })),
          } as KnownBlock,
        ],
      },
      'blocks[0] (section).fields has 11 items (max 10)',
    ],
    [
      'a long field',
      {
        text: 'x',
        blocks: [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2001) }] } as KnownBlock],
      },
      'blocks[0] (section).fields[0] is 2001 characters (max 2000)',
    ],
    [
      '11 context elements',
      {
        text: 'x',
        blocks: [
          {
            type: 'context',
            elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })),
          } as KnownBlock,
        ],
      },
      'blocks[0] (context).elements has 11 items (max 10)',
    ],
    [
      'a long button label',
      { text: 'x', blocks: [button({ text: { type: 'plain_text', text: 'b'.repeat(76) } })] },
      'blocks[0] (actions).elements[0].text is 76 characters (max 75)',
    ],
    [
      'a long button value',
      { text: 'x', blocks: [button({ value: 'v'.repeat(2001) })] },
      'blocks[0] (actions).elements[0].value is 2001 characters (max 2000)',
    ],
    [
      'a long action id',
      { text: 'x', blocks: [button({ action_id: 'a'.repeat(256) })] },
      'blocks[0] (actions).elements[0].action_id is 256 characters (max 255)',
    ],
    [
      'a bad style',
      { text: 'x', blocks: [button({ style: 'green' })] },
      'blocks[0] (actions).elements[0].style must be primary or danger',
    ],
    [
      'a long confirm title',
      {
        text: 'x',
        blocks: [
          button({
            confirm: {
              title: { type: 'plain_text', text: 't'.repeat(101) },
              text: { type: 'mrkdwn', text: 'sure?' },
              confirm: { type: 'plain_text', text: 'Yes' },
              deny: { type: 'plain_text', text: 'No' },
            },
          }),
        ],
      },
      'blocks[0] (actions).elements[0].confirm.title is 101 characters (max 100)',
    ],
    [
      'long confirm text',
      {
        text: 'x',
        blocks: [
          button({
            confirm: {
              title: { type: 'plain_text', text: 'Sure?' },
              text: { type: 'mrkdwn', text: 't'.repeat(301) },
              confirm: { type: 'plain_text', text: 'Yes' },
              deny: { type: 'plain_text', text: 'No' },
            },
          }),
        ],
      },
      'blocks[0] (actions).elements[0].confirm.text is 301 characters (max 300)',
    ],
    [
      'a long block id',
      { text: 'x', blocks: [section('a', 'b'.repeat(256))] },
      'blocks[0] (section).block_id is 256 characters (max 255)',
    ],
    [
      'repeated block ids',
      { text: 'x', blocks: [section('a', 'same'), section('b', 'same')] },
      'blocks[1].block_id "same" is not unique',
    ],
    ['empty fallback text', { text: '', blocks: [section('a')] }, 'fallback text is empty'],
    [
      'long fallback text',
      { text: 't'.repeat(4001), blocks: [section('a')] },
      'fallback text is 4001 characters (max 4000)',
    ],
    [
      'too much text across blocks',
      { text: 'x', blocks: Array.from({ length: 4 }, () => section('s'.repeat(2600))) },
      'blocks hold 10400 characters of text (max 10000)',
    ],
  ])('reports %s', (_name, payload, violation) => {
    expect(findBlockKitViolations(payload)).toContain(violation);
  });

  it('reports repeated action ids within one actions block', () => {
    const block = {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'same', text: { type: 'plain_text', text: 'A' } },
        { type: 'button', action_id: 'same', text: { type: 'plain_text', text: 'B' } },
      ],
    } as KnownBlock;
    expect(findBlockKitViolations({ text: 'x', blocks: [block] })).toEqual([
      'blocks[0] (actions).elements[1].action_id "same" repeats within the block',
    ]);
  });

  it('does not apply the message text budget to a home view', () => {
    const blocks = Array.from({ length: 10 }, () => section('s'.repeat(2900)));
    expect(findBlockKitViolations({ type: 'home', blocks })).toEqual([]);
  });
});

describe('assertWithinBlockKitLimits', () => {
  it('returns the payload when it fits', () => {
    const message = { text: 'hi', blocks: [section('hello')] };
    expect(assertWithinBlockKitLimits(message)).toBe(message);
  });

  it('throws a coded error listing every violation', () => {
    const payload = { text: '', blocks: [section('s'.repeat(3001))] };
    const error = (() => {
      try {
        assertWithinBlockKitLimits(payload);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(BlockKitLimitError);
    expect((error as BlockKitLimitError).code).toBe('block_kit_limit');
    expect((error as BlockKitLimitError).violations).toEqual([
      'blocks[0] (section).text is 3001 characters (max 3000)',
      'fallback text is empty',
    ]);
    expect((error as Error).message).toContain('3001 characters');
  });
});

describe('measureBlockText', () => {
  it('sums the text of every text object, buttons included', () => {
    expect(measureBlockText([section('abc'), button()])).toBe(5);
  });
});
