import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './holdfast-process.js';
import { startLocalHoldfast } from './local-holdfast.js';
import { buttonOf, type StateMessage, waitForState } from './local-http.js';

/** The phrases the README's Local mode section offers the demo model, from the sentence that lists them. */
function readmeDemoPhrases(): string[] {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const sentence =
    /\*\*demo model\*\* answers:[\s\S]*?turns ([\s\S]+?) into the matching tool calls/.exec(readme)?.[1] ??
    '';
  return [...sentence.matchAll(/"([^"]+)"/g)].map((match) => (match[1] ?? '').replace(/\s+/g, ' '));
}

describe("the README's demo phrases, in local mode with no network and no API key", () => {
  it('each one runs its tool to an answer that is not a failure', async () => {
    const phrases = readmeDemoPhrases();
    expect(phrases).toEqual(['run `df -h`', 'list files', 'read notes.txt', 'read README.md', 'deploy api']);
    const { tab } = await startLocalHoldfast();

    for (const [index, phrase] of phrases.entries()) {
      const sent = await tab.post('/ui/message', {
        user: 'U0ALICE',
        channel: 'C0OPS',
        text: `<@U0HOLDFAST> ${phrase}`,
      });
      const threadTs = (JSON.parse(sent.text) as { ts: string }).ts;
      const inThread = (message: StateMessage) =>
        message.threadTs === threadTs && message.user === 'U0HOLDFAST';
      const first = await waitForState(
        tab,
        'U0BOB',
        (state) => state.messages.find((message) => inThread(message) && !message.text.startsWith('Using')),
        `holdfast's reply to "${phrase}"`,
      );
      const allow = buttonOf(first, 'holdfast.approval.allow');
      if (allow) {
        await tab.post('/ui/click', {
          user: 'U0BOB',
          channel: first.channel,
          message_ts: first.ts,
          action_id: 'holdfast.approval.allow',
          value: allow.element.value,
          block_id: allow.block.block_id,
        });
      }
      const answer = await waitForState(
        tab,
        'U0BOB',
        (state) => state.messages.find((message) => inThread(message) && message.text.includes(' finished')),
        `the answer to "${phrase}" (${index + 1} of ${phrases.length})`,
      );
      expect(answer.text).not.toMatch(/\[exit code [1-9]|Error:|does not exist|not configured|timed out/);
    }
  });
});
