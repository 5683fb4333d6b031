/**
 * What waiting conversations cost in heap: holdfast's, suspended in SQLite rows, against the usual way,
 * each parked in memory on a pending promise. Needs `--expose-gc` so both baselines are taken after a
 * full collection.
 */
import path from 'node:path';
import { buildSystemPrompt } from '../src/agent/system-prompt.js';
import type { SynchronousMode } from '../src/store/open-database.js';
import { benchNoopTool, buildHoldfastHarness } from './holdfast-cycle.js';

const teamId = 'TBENCH';
const channelId = 'CBENCH';

function heapMb(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** 10,000 conversations waiting on approval, held by nothing but their SQLite rows. */
export async function measureSuspended(
  workdir: string,
  conversations: number,
  synchronous: SynchronousMode,
): Promise<number> {
  // One requester asks for all of them: the per-person limit on unfinished work would refuse most.
  const harness = buildHoldfastHarness(path.join(workdir, 'suspended.db'), {
    synchronous,
    admission: { perThread: 5, perUser: Number.MAX_SAFE_INTEGER },
  });
  // Warm every code path and cache before the baseline, so the delta is the conversations alone.
  for (let i = 0; i < 600; i++) await harness.mention(`1600000000.${String(i).padStart(6, '0')}`);
  const baseline = heapMb();
  for (let i = 0; i < conversations; i++) {
    await harness.mention(`1700000000.${String(i).padStart(6, '0')}`);
  }
  await harness.runtime.idle();
  const grown = heapMb() - baseline;
  const pending = harness.pendingApprovals();
  if (pending !== conversations + 600) {
    throw new Error(`expected ${conversations + 600} pending approvals, found ${pending}`);
  }
  await harness.close();
  return grown;
}

/**
 * The usual way: each waiting conversation is a pending promise whose closure holds its agent and
 * transcript until someone clicks. Same messages as holdfast stores, nothing more.
 */
export function measurePinned(conversations: number): { grown: number; release: () => void } {
  const baseline = heapMb();
  const waiting = new Map<string, (decision: 'allow' | 'deny') => void>();
  const parked: Promise<string>[] = [];
  for (let i = 0; i < conversations; i++) {
    const thread = `1700000000.${String(i).padStart(6, '0')}`;
    const agent = {
      conversationId: `${teamId}:${channelId}:${thread}`,
      tools: [benchNoopTool],
      systemPrompt: buildSystemPrompt({ botName: 'holdfast', toolNames: ['noop'] }),
    };
    const messages = [
      { role: 'system', content: agent.systemPrompt },
      { role: 'user', content: '@requester: restart web-1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'noop', arguments: `{"target":"web-1"}` } },
        ],
      },
    ];
    parked.push(
      new Promise<'allow' | 'deny'>((resolve) => waiting.set(agent.conversationId, resolve)).then(
        (decision) => `${agent.conversationId} ${decision} after ${messages.length} messages`,
      ),
    );
  }
  const grown = heapMb() - baseline;
  return {
    grown,
    release() {
      for (const resolve of waiting.values()) resolve('deny');
      waiting.clear();
      parked.length = 0;
    },
  };
}
