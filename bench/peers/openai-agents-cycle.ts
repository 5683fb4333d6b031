/**
 * The cycle with the OpenAI Agents SDK, the way its human-in-the-loop guide does it: a tool that
 * `needsApproval`, a run that stops on the interruption, the `RunState` serialised into a SQLite row,
 * and later a fresh run from the row with the call approved. The SDK stores nothing by itself; the two
 * commits are the row written at the interruption and the answer recorded at the end. The decision is
 * not stored on its own (a crash between the click and the end of the run forgets it), nor are the
 * steps in between: that is the durability holdfast pays for and this cycle does not.
 */
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import { countCommits } from '../count-commits.js';
import { cycleAnswer, cycleRequest } from '../holdfast-cycle.js';
import type { BuildCycleHarness } from './cycle-harness.js';
import { openPeerDatabase } from './open-peer-database.js';

/** Zero latency: a tool call first, the answer once the call's result is in the input. */
class InstantModel implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input: AgentInputItem[] = typeof request.input === 'string' ? [] : request.input;
    const answered = input.some((item) => item.type === 'function_call_result');
    return {
      usage: new Usage(),
      output: answered
        ? [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: cycleAnswer }],
            },
          ]
        : [
            {
              type: 'function_call',
              callId: 'call_1',
              name: 'noop',
              arguments: '{"target":"web-1"}',
              status: 'completed',
            },
          ],
    };
  }

  // biome-ignore lint/correctness/useYield: the cycle never streams; a stream request is a harness bug.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the benchmark model does not stream');
  }
}

export const buildOpenAIAgentsHarness: BuildCycleHarness = async (file, options) => {
  // Tracing would export spans to OpenAI's API: nothing leaves the machine, and it is not the cycle.
  setTracingDisabled(true);
  const db = openPeerDatabase(file, options);
  db.exec(`CREATE TABLE IF NOT EXISTS runs (
    thread TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    status TEXT NOT NULL,
    answer TEXT
  )`);
  const commits = countCommits(db);
  const insertRun = db.prepare("INSERT INTO runs (thread, state, status) VALUES (?, ?, 'awaiting')");
  const selectRun = db.prepare('SELECT state FROM runs WHERE thread = ?').pluck();
  const finishRun = db.prepare("UPDATE runs SET status = 'done', answer = ?, state = ? WHERE thread = ?");

  const noop = tool({
    name: 'noop',
    description: 'Does nothing, after asking.',
    parameters: z.object({ target: z.string() }),
    needsApproval: true,
    execute: async () => 'ok',
  });
  const agent = new Agent({
    name: 'bench',
    instructions: 'You run operations tasks.',
    model: new InstantModel(),
    tools: [noop],
  });
  const runner = new Runner({ tracingDisabled: true });

  return {
    commits: commits.count,
    async cycle(thread) {
      const suspended = await runner.run(agent, cycleRequest);
      if (suspended.interruptions.length === 0) throw new Error('the run did not stop for approval');
      insertRun.run(thread, suspended.state.toString());

      // The click: a fresh run from the stored row, the call approved.
      const stored = selectRun.get(thread);
      if (typeof stored !== 'string') throw new Error(`no stored run for ${thread}`);
      const state = await RunState.fromString(agent, stored);
      for (const interruption of state.getInterruptions()) state.approve(interruption);
      const resumed = await runner.run(agent, state);
      if (resumed.finalOutput !== cycleAnswer) throw new Error(`unexpected answer ${resumed.finalOutput}`);
      finishRun.run(resumed.finalOutput, resumed.state.toString(), thread);
    },
    async settle() {},
    async close() {
      db.close();
    },
  };
};
