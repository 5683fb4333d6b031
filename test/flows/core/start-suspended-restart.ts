import { reply, ScriptedChatModel, type ScriptedStep } from '../../../src/llm/index.js';
import { countingTool, startCoreHarness } from './core-harness.js';

/**
 * A thread where the model asks to restart web and the turn waits for approval: the story most decision
 * and recovery tests start from. `answers` is what the model says once the call has a result.
 */
export async function startSuspendedRestart(options: {
  readonly threadTs: string;
  readonly answers: readonly ScriptedStep[];
  readonly approvalExpiryMs?: number;
}) {
  const restart = countingTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['restart_service', { service: 'web' }]),
    ...options.answers,
  ]);
  const core = startCoreHarness({ model, tools: [restart.tool], approvalExpiryMs: options.approvalExpiryMs });

  await core.submit(options.threadTs, 'restart web');
  const suspended = await core.nextOutcome();
  if (suspended.type !== 'awaiting-approval') throw new Error(`expected a suspension, got ${suspended.type}`);
  return { restart, model, core, suspended };
}
