import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.js';

describe('markdownToMrkdwn', () => {
  it.each([
    ['**bold**', '*bold*'],
    ['__bold__', '*bold*'],
    ['*italic*', '_italic_'],
    ['_italic_', '_italic_'],
    ['***both***', '*_both_*'],
    ['**bold with *italic* inside**', '*bold with _italic_ inside*'],
    ['~~strike~~', '~strike~'],
    ['[docs](https://example.com/a)', '<https://example.com/a|docs>'],
    ['[q](https://example.com/?a=1&b=2)', '<https://example.com/?a=1&amp;b=2|q>'],
    ['[a|b](https://example.com)', '<https://example.com|a¦b>'],
    ['[https://example.com](https://example.com)', '<https://example.com>'],
    ['[readme](docs/readme.md)', 'readme (docs/readme.md)'],
    ['# Heading', '*Heading*'],
    ['### Deep **heading** ###', '*Deep heading*'],
    ['- one', '• one'],
    ['* two', '• two'],
    ['+ three', '• three'],
    ['  - nested *it*', '  • nested _it_'],
    ['- [ ] todo', '• ☐ todo'],
    ['- [x] done', '• ☑ done'],
    ['1. first', '1. first'],
    ['> quoted **text**', '&gt; quoted *text*'],
    ['---', '──────────'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['ping <@U123ABC> in <#C42> and <!subteam^S77>', 'ping <@U123ABC> in <#C42> and <!subteam^S77>'],
    ['see <https://example.com|the site>', 'see <https://example.com|the site>'],
    ['<!date^1700000000^{date}|Nov 14>', '<!date^1700000000^{date}|Nov 14>'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['5 * 3 * 2', '5 * 3 * 2'],
    ['a*b*c', 'a*b*c'],
    ['\\*not italic\\*', '*not italic*'],
    ['visit https://example.com/a_b_c.', 'visit https://example.com/a_b_c.'],
    ['plain text, nothing to do.', 'plain text, nothing to do.'],
  ])('converts %j', (markdown, expected) => {
    expect(markdownToMrkdwn(markdown)).toBe(expected);
  });

  it('with allowedPings, notifies only those listed: other users, groups and broadcasts become text', () => {
    expect(
      markdownToMrkdwn('done <@U0BOB>, <@U0ALICE|alice>, <!subteam^S77|oncall>, <!here> and <#C42>', {
        allowedPings: new Set(['U0ALICE']),
      }),
    ).toBe('done &lt;@U0BOB&gt;, <@U0ALICE|alice>, &lt;!subteam^S77|oncall&gt;, &lt;!here&gt; and <#C42>');
  });

  it('leaves inline code unconverted but escaped', () => {
    expect(markdownToMrkdwn('run `rm -rf **build** <dir>` now')).toBe(
      'run `rm -rf **build** &lt;dir&gt;` now',
    );
  });

  it('leaves fenced code unconverted, drops the info string and escapes it', () => {
    const markdown = ['```ts', 'const a = b < c && **d**;', '- not a list', '```', 'after **bold**'].join(
      '\n',
    );
    expect(markdownToMrkdwn(markdown)).toBe(
      ['```', 'const a = b &lt; c &amp;&amp; **d**;', '- not a list', '```', 'after *bold*'].join('\n'),
    );
  });

  it('neutralises backtick fences inside a tilde fence so they cannot close the block early', () => {
    const out = markdownToMrkdwn(['~~~', 'echo ```', '~~~'].join('\n'));
    expect(out).toBe('```\necho `\u200B`\u200B`\n```');
  });

  it('closes a fence the model left open', () => {
    expect(markdownToMrkdwn('```\nunfinished')).toBe('```\nunfinished\n```');
  });

  it('keeps a one-line ```code``` as inline code', () => {
    expect(markdownToMrkdwn('```ls -la```')).toBe('`ls -la`');
  });

  it('escapes broadcast mentions from model output unless allowed', () => {
    expect(markdownToMrkdwn('hey <!channel> and <!here>')).toBe('hey &lt;!channel&gt; and &lt;!here&gt;');
    expect(markdownToMrkdwn('hey <!here>', { allowBroadcastMentions: true })).toBe('hey <!here>');
  });

  it('drops private-use characters it relies on internally', () => {
    expect(markdownToMrkdwn('a\uE0000\uE001b **c**')).toBe('a0b *c*');
  });

  it('normalises CRLF line endings', () => {
    expect(markdownToMrkdwn('# A\r\n- b\r\n')).toBe('*A*\n• b\n');
  });
});
