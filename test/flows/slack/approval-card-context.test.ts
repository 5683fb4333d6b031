import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createDeployTool } from '../../../src/tools/deploy.js';
import { startSlackHarness, waitForCard } from './slack-harness.js';

describe('the approval card an approver decides from', () => {
  it('says why a deploy asks, the command and ref that will run, where, and what it may change', async () => {
    const deploy = createDeployTool({
      services: { api: { command: './deploy.sh api', cwd: 'release' } },
      workdir: '/srv/ops',
      env: {},
      host: 'ops-1',
    });
    const model = new ScriptedChatModel([
      reply.toolCalls(['deploy', { service: 'api', ref: 'v1.2.3' }, 'call_deploy']),
      reply.text('Deployed.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [deploy] });

    const threadTs = await slack.mention('deploy api at v1.2.3');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const text = JSON.stringify(card.call.params.blocks);
    expect(text).toContain(
      '*Needs approval because* `deploy` asks by default and no policy rule or grant allows this call.',
    );
    expect(text).toContain('*Deploys* `api` at ref `v1.2.3`');
    expect(text).toContain('*Command that runs:* `./deploy.sh api`');
    expect(text).toContain('*Runs* in `/srv/ops/release` on host `ops-1`');
    expect(text).toContain('*May change:* the running api service');
  });
});
