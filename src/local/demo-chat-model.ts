import type { ChatMessage, ChatModel, ChatRequest, ModelReply, ToolCall } from '../agent/chat-model.js';
import { modelNoteMark } from '../agent/not-run-result.js';
import { streamReply } from '../llm/stream-reply.js';
import { directContextHeading } from '../slack/intake/direct-context.js';
import { contextUnavailableNote, threadContextHeading } from '../slack/intake/thread-context.js';

/**
 * A model for trying holdfast without an API key: it reads the last message and picks a tool by simple
 * patterns, so the approval flow can be seen end to end. The same conversation always gets the same reply.
 */
export function createDemoChatModel(): ChatModel {
  const complete = async (request: ChatRequest): Promise<ModelReply> => {
    const last = request.messages.at(-1);
    if (!last) return text(helpText(request));
    if (last.role === 'tool') return text(summarizeResults(request.messages));
    if (last.role !== 'user') return text(helpText(request));
    const { said, contextLines, where } = readRequest(last.content);
    const reply = replyTo(withoutSpeaker(said), request);
    // Says what it read, so the thread context can be seen at work without a real model.
    if (contextLines === 0 || reply.toolCalls.length > 0) return reply;
    const earlier = contextLines === 1 ? 'the earlier message' : `the ${contextLines} earlier messages`;
    return text(`I read ${earlier} of this ${where}.\n\n${reply.content ?? ''}`);
  };
  return {
    complete,
    stream: async (request, onEvent) => streamReply(await complete(request), onEvent),
  };
}

const callId = (request: ChatRequest) => `call_demo_${request.messages.length}`;

function replyTo(message: string, request: ChatRequest): ModelReply {
  const has = (name: string) => request.tools.some((tool) => tool.name === name);
  const call = (name: string, args: Record<string, unknown>): ModelReply =>
    has(name)
      ? {
          // Said before the call, as a real model often does: a live answer shows it while the tool runs.
          content: `Using \`${name}\` for this.`,
          toolCalls: [{ id: callId(request), name, arguments: JSON.stringify(args) }],
        }
      : text(`The \`${name}\` tool is not configured here.`);

  // "run `a` and `b`": one reply calling the tool for each, so a plan of several calls can be tried.
  const commands = /\brun\s+`/i.test(message)
    ? [...message.matchAll(/`([^`]+)`/g)].map((match) => (match[1] ?? '').trim()).filter(Boolean)
    : [];
  if (commands.length > 1 && has('run_shell')) {
    return {
      content: `Using \`run_shell\` ${commands.length} times for this.`,
      toolCalls: commands.map((command, index) => ({
        id: `${callId(request)}_${index}`,
        name: 'run_shell',
        arguments: JSON.stringify({ command }),
      })),
    };
  }
  const shell = /\brun\s+`([^`]+)`/i.exec(message) ?? /\brun\s+(.+?)\s*$/i.exec(message);
  if (shell?.[1]) return call('run_shell', { command: shell[1].trim() });
  const url = /\bcheck\s+<?(https?:\/\/[^\s>|]+)/i.exec(message);
  if (url?.[1]) return call('http_request', { method: 'GET', url: url[1] });
  const deploy = /\bdeploy\s+([a-z0-9][a-z0-9_-]*)/i.exec(message);
  if (deploy?.[1]) {
    if (!has('deploy'))
      return text('Deploys are not configured here (set HOLDFAST_DEPLOY_SERVICES to add a service).');
    return call('deploy', { service: deploy[1].toLowerCase() });
  }
  if (/\blist\s+files\b/i.test(message)) return call('list_files', {});
  const read = /\bread\s+`?([^\s`]+)`?/i.exec(message);
  if (read?.[1]) return call('read_file', { path: read[1] });
  return text(helpText(request));
}

/**
 * A first mention inside a thread, and a new top-level DM, arrive after what was said before them, as
 * context (one line per message under a heading), or after a note that it could not be read: the request
 * is what follows. The context is only counted, never acted on: each message is answered on its own.
 */
function readRequest(content: string): {
  said: string;
  contextLines: number;
  where: 'thread' | 'conversation';
} {
  const where = content.startsWith(directContextHeading) ? 'conversation' : 'thread';
  if (content.startsWith(contextUnavailableNote))
    return { said: content.slice(contextUnavailableNote.length).trimStart(), contextLines: 0, where };
  if (!content.startsWith(threadContextHeading) && !content.startsWith(directContextHeading))
    return { said: content, contextLines: 0, where };
  // The request is the last paragraph that opens with its speaker (`@alice: …`); an earlier message in
  // the context may hold blank lines of its own, so the context is never cut at the first one.
  const starts = [...content.matchAll(/\n\n(?=@[^:\n]{1,80}:)/g)];
  const at = starts.at(-1)?.index;
  if (at === undefined) return { said: '', contextLines: 0, where };
  const context = content.slice(0, at);
  const contextLines = context.split('\n').filter((line) => /^(?:@[^:\n]{1,80}|a bot): /.test(line)).length;
  return { said: content.slice(at + 2), contextLines, where };
}

/** Users' turns arrive as `@alice: text`; mentions of the bot are already rendered as `@holdfast`. */
function withoutSpeaker(content: string): string {
  return content
    .replace(/^@[^:]{1,80}:\s*/, '')
    .replace(/@holdfast\b/gi, '')
    .trim();
}

/** Every result since the model last spoke, one paragraph each, in the order of its calls. */
function summarizeResults(messages: readonly ChatMessage[]): string {
  const results: Array<Extract<ChatMessage, { role: 'tool' }>> = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'tool') break;
    results.unshift(message);
  }
  return results.map((result) => summarizeResult(messages, result)).join('\n\n');
}

function summarizeResult(messages: readonly ChatMessage[], result: Extract<ChatMessage, { role: 'tool' }>) {
  const call = findCall(messages, result.toolCallId);
  const name = call ? `\`${call.name}\`` : 'The tool';
  // Lines marked for the model are its guidance, never repeated to people.
  const output = result.content
    .split('\n')
    .filter((line) => !line.startsWith(modelNoteMark))
    .join('\n')
    .trim();
  const firstLine = output.split('\n')[0] ?? '';
  // How the call ended comes from its outcome; results kept before outcomes were are read as before.
  switch (result.outcome?.type) {
    case 'failed': {
      const how = result.outcome.exitCode !== undefined ? ` (exit code ${result.outcome.exitCode})` : '';
      return `${name} failed${how}:\n\`\`\`\n${clip(output)}\n\`\`\``;
    }
    case 'stopped':
      return `${name} was stopped before it finished.`;
    case 'interrupted':
      // Either the sentence recovery wrote for a call cut off by a restart, or what the call printed
      // before a shutdown cut it off.
      if (/^interrupted:/i.test(firstLine))
        return `${name} was interrupted: ${firstLine.replace(/^interrupted:\s*/i, '')}`;
      return `${name} was cut off by a shutdown before it finished, so what it did is unknown:\n\`\`\`\n${clip(output)}\n\`\`\``;
    case 'denied':
    case 'expired':
    case 'refused':
      return `${name} was not run. ${firstLine.replace(/^Not run:\s*/i, '')}`;
    default:
      break;
  }
  if (/^Not run:/i.test(output)) return `${name} was not run. ${firstLine.replace(/^Not run:\s*/i, '')}`;
  if (/timed out/i.test(output)) return `${name} timed out:\n\`\`\`\n${clip(output)}\n\`\`\``;
  if (output === '') return `${name} finished with no output.`;
  return `${name} finished. Result:\n\`\`\`\n${clip(output)}\n\`\`\``;
}

function findCall(messages: readonly ChatMessage[], id: string): ToolCall | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const found = message.toolCalls?.find((call) => call.id === id);
    if (found) return found;
  }
  return undefined;
}

function clip(output: string): string {
  return output.length > 2_000 ? `${output.slice(0, 2_000)}\n…` : output;
}

function helpText(request: ChatRequest): string {
  const tools = new Set(request.tools.map((tool) => tool.name));
  const examples = [
    tools.has('run_shell') && '"run `df -h`"',
    tools.has('http_request') && '"check https://example.com"',
    tools.has('deploy') && '"deploy api"',
    tools.has('list_files') && '"list files"',
    tools.has('read_file') && '"read notes.txt"',
  ].filter(Boolean);
  return `I am the demo model. Try ${examples.length > 0 ? examples.join(', ') : 'asking for a tool'}.`;
}

function text(content: string): ModelReply {
  return { content, toolCalls: [] };
}
