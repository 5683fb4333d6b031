import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hashArguments } from '../agent/hash-arguments.js';
import type { Tool } from '../agent/tool.js';
import type { Approval } from '../store/records.js';
import { defineTool } from '../tools/define-tool.js';
import { checkEdit } from './check-edit.js';
import { policySchema } from './policy.js';

const shell = defineTool({
  name: 'ops_shell',
  description: 'Runs a command.',
  parameters: z.object({ command: z.string().min(1) }),
  permission: (args) =>
    args.command.startsWith('deploy')
      ? { type: 'ask', permissionType: 'deploy', summary: `deploy via \`${args.command}\`` }
      : { type: 'ask', permissionType: 'shell', summary: `run \`${args.command}\`` },
  execute: async () => 'ran',
}) as Tool;

const proposed = { command: 'systemctl restart web' };
const approval = {
  requestId: 'apr_1',
  conversationId: 'T:C:1',
  transcriptId: 'T:C:1',
  toolCallId: 'call_1',
  turnId: 'turn-1',
  toolName: 'ops_shell',
  permissionType: 'shell',
  summary: 'run `systemctl restart web`',
  arguments: proposed,
  argsHash: hashArguments(JSON.stringify(proposed)),
  requestedBy: 'U1',
} as Approval;

const policy = policySchema.parse({
  rules: [{ tool: 'ops_shell', match: { command: 'rm *' }, action: 'deny', reason: 'no deleting' }],
});
const deps = { policy, tool: shell, logger: pino({ level: 'silent' }) };

describe('checkEdit', () => {
  it('gives the edit the store applies: parsed arguments, their exact text and hash, a new summary', async () => {
    const check = await checkEdit(deps, approval, { command: 'systemctl status web' });
    expect(check).toEqual({
      type: 'edit',
      edit: {
        fromArgsHash: approval.argsHash,
        arguments: { command: 'systemctl status web' },
        argumentsText: '{"command":"systemctl status web"}',
        argsHash: hashArguments('{"command":"systemctl status web"}'),
        summary: 'run `systemctl status web`',
      },
    });
  });

  it('lets a deny rule win over the edit', async () => {
    expect(await checkEdit(deps, approval, { command: 'rm -rf /srv' })).toEqual({
      type: 'refused',
      reason: 'denied-by-policy',
      problem: 'Blocked by policy: no deleting. Deny rules apply to edited calls too.',
    });
  });

  it('refuses arguments the tool does not accept, and a call asked under another permission', async () => {
    expect(await checkEdit(deps, approval, { command: '' })).toMatchObject({
      type: 'refused',
      reason: 'invalid-arguments',
    });
    expect(await checkEdit(deps, approval, { command: 'deploy api' })).toMatchObject({
      type: 'refused',
      reason: 'permission-changed',
    });
  });

  it('calls an edit that changes nothing unchanged, and refuses one for a tool it cannot check', async () => {
    expect(await checkEdit(deps, approval, { command: 'systemctl restart web' })).toEqual({
      type: 'unchanged',
    });
    expect(await checkEdit({ ...deps, tool: undefined }, approval, proposed)).toMatchObject({
      type: 'refused',
      reason: 'tool-unavailable',
    });
  });
});
