/**
 * The cycle with LangGraph JS and its SQLite checkpointer: an agent node calls the chat model, a tool
 * node asks with `interrupt()` before running the no-op, and the decision comes back as
 * `Command({ resume })` on the same thread id, restored from the checkpoints alone. Durability is the
 * default (`"async"`); with better-sqlite3 the saver writes each checkpoint before it returns anyway.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { countCommits } from '../count-commits.js';
import { cycleAnswer, cycleRequest } from '../holdfast-cycle.js';
import type { BuildCycleHarness } from './cycle-harness.js';
import { openPeerDatabase } from './open-peer-database.js';

/** Zero latency: a tool call first, the answer once the call's result is the last message. */
class InstantChatModel extends BaseChatModel {
  _llmType(): string {
    return 'instant';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages.at(-1);
    const message =
      last && ToolMessage.isInstance(last)
        ? new AIMessage(cycleAnswer)
        : new AIMessage({
            content: '',
            tool_calls: [{ id: 'call_1', name: 'noop', args: { target: 'web-1' }, type: 'tool_call' }],
          });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

export const buildLangGraphHarness: BuildCycleHarness = async (file, options) => {
  const db = openPeerDatabase(file, options);
  const commits = countCommits(db);
  const model = new InstantChatModel({});

  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', async (state) => {
      const last = state.messages.at(-1);
      const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
      const results: ToolMessage[] = [];
      for (const call of calls) {
        const decision: unknown = interrupt({ tool: call.name, args: call.args });
        const content = decision === 'allow' ? 'ok' : 'The approver refused.';
        results.push(new ToolMessage({ content, tool_call_id: call.id ?? '' }));
      }
      return { messages: results };
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => {
      const last = state.messages.at(-1);
      return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
    })
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new SqliteSaver(db) });

  return {
    commits: commits.count,
    async cycle(thread) {
      const config = { configurable: { thread_id: thread } };
      const suspended = await graph.invoke({ messages: [new HumanMessage(cycleRequest)] }, config);
      if (!('__interrupt__' in suspended)) throw new Error('the graph did not stop for approval');
      const resumed = await graph.invoke(new Command({ resume: 'allow' }), config);
      const answer = resumed.messages.at(-1)?.content;
      if (answer !== cycleAnswer) throw new Error(`unexpected answer ${String(answer)}`);
    },
    async settle() {},
    async close() {
      db.close();
    },
  };
};
