import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { createReadFileTool } from '../../../src/tools/read-file.js';
import { tempDir } from '../../support/temp-dir.js';
import { startCoreHarness, threadId, toolResults } from '../core/core-harness.js';

describe('a tool refusing a call', () => {
  it('gives the model the reason as the result and records the refusal in the audit table', async () => {
    const root = tempDir().path;
    const workdir = path.join(root, 'work');
    fs.mkdirSync(workdir);
    fs.writeFileSync(path.join(root, 'secret.txt'), 'do not read');
    const model = new ScriptedChatModel([
      reply.toolCalls(['read_file', { path: '../secret.txt' }]),
      reply.text('That file is outside what I may read.'),
    ]);
    const harness = startCoreHarness({ model, tools: [createReadFileTool(workdir) as Tool] });

    await harness.submit('1700000000.000100', 'read ../secret.txt');
    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed' });

    const result = toolResults(await harness.messages('1700000000.000100')).get('call_1');
    expect(result).toMatch(/is outside the working directory/);
    expect(result).not.toContain('do not read');
    const audit = await harness.store.audit.list({ conversationId: threadId('1700000000.000100') });
    expect(audit.filter((event) => event.kind === 'tool.refused').map((event) => event.data)).toEqual([
      { tool: 'read_file', toolCallId: 'call_1', reason: result },
    ]);
  });
});
