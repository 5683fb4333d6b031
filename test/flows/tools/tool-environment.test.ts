import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { tempDir } from '../../support/temp-dir.js';
import { readRows, startSlackHarness } from '../slack/slack-harness.js';

// printenv prints the variables that are set, in order, and nothing for the others.
const command = 'printenv KUBECONFIG AWS_REGION SLACK_BOT_TOKEN HOSTNAME_ALIAS';

describe('HOLDFAST_TOOL_ENV', () => {
  it('passes the variables an operator names to run_shell, and nothing else', async () => {
    const dir = tempDir('holdfast-tool-env-');
    // The command is allowed by policy, so the result comes back without an approval round.
    writeFileSync(
      dir.file('policy.yml'),
      `rules:\n  - tool: run_shell\n    match: { command: ${JSON.stringify(command)} }\n    action: allow\n`,
    );
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.toolCalls(['run_shell', { command }]), reply.text('Listed.')]),
      env: {
        HOLDFAST_POLICY: dir.file('policy.yml'),
        HOLDFAST_TOOL_ENV: 'KUBECONFIG,AWS_REGION',
        KUBECONFIG: '/etc/kube/ops.yaml',
        AWS_REGION: 'eu-west-1',
        HOSTNAME_ALIAS: 'ops-1',
      },
    });

    await slack.mention('which cluster and region do tools see?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Listed.');

    const [result] = readRows(slack.databasePath, "SELECT content FROM messages WHERE role = 'tool'");
    const output = String(result?.content);
    expect(output).toMatch(/^\/etc\/kube\/ops\.yaml\neu-west-1\n/);
    expect(output).not.toContain('ops-1');
    expect(output).not.toContain(slack.api.botToken);
  });
});
