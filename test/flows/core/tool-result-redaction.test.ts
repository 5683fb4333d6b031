import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { startCoreHarness, toolResults } from './core-harness.js';

// Built by concatenation so no complete credential-shaped literal sits in the repository.
const accessKeyId = ['ASIA', 'Q3EGUCMXZ4EXAMPLE'].join('');
const secretAccessKey = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYzEXAMPLEKEY'].join('/');
const sessionToken = ['IQoJb3JpZ2luX2VjEJr', '//////////wEaCXVzLWVhc3QtMSJHMEUCIQ'].join('');
const jwt = [
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ',
  'eyJzdWIiOiJzZXJ2aWNlLWFjY291bnQiLCJleHAiOjE3MDB9',
  'c2lnbmF0dXJlLWJ5dGVzLWhlcmU',
].join('.');
const clientToken = ['xox', 'c-', '1234567890-', 'aBcDeFgHiJkLmNoPqRsTuVwXyZ012345'].join('');

/** A tool that reads credentials without asking, the way `aws sts assume-role` or a vault CLI would. */
const leakyTool = defineTool({
  name: 'assume_role',
  description: 'Assumes the deploy role.',
  parameters: z.object({}),
  permission: () => ({ type: 'allow', reason: 'read-only' }),
  execute: () =>
    JSON.stringify(
      {
        Credentials: {
          AccessKeyId: accessKeyId,
          SecretAccessKey: secretAccessKey,
          SessionToken: sessionToken,
        },
        // A token split by a zero-width space still is one.
        Token: jwt.replace('.', '.\u200B'),
        Slack: clientToken,
      },
      null,
      2,
    ),
}) as Tool;

describe('a tool result that holds credentials', () => {
  it('is redacted before it is stored and before the model is sent it', async () => {
    const model = new ScriptedChatModel([
      reply.toolCalls(['assume_role', {}, 'call_role']),
      reply.text('Assumed the role.'),
    ]);
    const core = startCoreHarness({ model, tools: [leakyTool] });
    const threadTs = '1767220500.000100';

    await core.submit(threadTs, 'assume the deploy role');
    expect((await core.nextOutcome()).type).toBe('completed');

    const stored = toolResults(await core.messages(threadTs)).get('call_role') ?? '';
    const sent = toolResults(model.calls[1]!.messages).get('call_role') ?? '';
    for (const result of [stored, sent]) {
      expect(result).toContain('"SecretAccessKey": "[redacted aws secret key]"');
      expect(result).toContain('"SessionToken": "[redacted aws session token]"');
      expect(result).toContain('"AccessKeyId": "[redacted aws access key]"');
      expect(result).toContain('"Token": "[redacted jwt]"');
      expect(result).toContain('"Slack": "[redacted slack token]"');
      for (const secret of [accessKeyId, secretAccessKey, sessionToken, clientToken, jwt.split('.')[1]!]) {
        expect(result).not.toContain(secret);
      }
    }
  });
});
