import type { ChatMessage, ToolSpec } from './chat-model.js';
import type { Tool } from './tool.js';

/**
 * A conservative guess of a message's tokens: about 3.5 characters a token for English and JSON, plus
 * the few tokens each message costs in the chat format. Erring high only drops context a little early.
 */
export function estimateTokens(message: ChatMessage): number {
  let chars = message.content?.length ?? 0;
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length + 16;
  }
  return Math.ceil(chars / 3.5) + 6;
}

/**
 * What a tool costs in every request: its spec, measured once per tool (a tool does not change, and each
 * run of each turn would otherwise serialise every schema again to count it).
 */
const specLengths = new WeakMap<object, number>();

export function estimateToolTokens(
  tools: readonly Pick<Tool, 'name' | 'description' | 'jsonSchema'>[],
): number {
  let chars = 2 + Math.max(0, tools.length - 1);
  for (const tool of tools) {
    let length = specLengths.get(tool);
    if (length === undefined) {
      const spec: ToolSpec = { name: tool.name, description: tool.description, parameters: tool.jsonSchema };
      length = JSON.stringify(spec).length;
      specLengths.set(tool, length);
    }
    chars += length;
  }
  return Math.ceil(chars / 3.5);
}

export interface FittedContext {
  readonly messages: ChatMessage[];
  /** How many of the oldest messages were left out. */
  readonly dropped: number;
}

/**
 * The newest part of a transcript that fits in `budgetTokens`, cut only between exchanges: an assistant
 * message with tool calls always keeps every one of its results (the API rejects a call without its
 * result, and a result without its call), and the newest exchange is always kept. When anything is left
 * out, the model is told so in a first message, so it does not mistake the thread for its beginning.
 */
export function fitToBudget(history: readonly ChatMessage[], budgetTokens: number): FittedContext {
  const units: ChatMessage[][] = [];
  for (const message of history) {
    const current = units.at(-1);
    if (message.role === 'tool' && current) current.push(message);
    else units.push([message]);
  }
  let used = 0;
  let firstKept = units.length;
  for (let index = units.length - 1; index >= 0; index -= 1) {
    const unit = units[index] as ChatMessage[];
    const cost = unit.reduce((sum, message) => sum + estimateTokens(message), 0);
    if (used + cost > budgetTokens && firstKept < units.length) break;
    used += cost;
    firstKept = index;
  }
  // A transcript never starts with tool results: their call was cut, so they go too.
  while (firstKept < units.length && units[firstKept]?.[0]?.role === 'tool') firstKept += 1;
  const kept = units.slice(firstKept).flat();
  const dropped = history.length - kept.length;
  if (dropped === 0) return { messages: kept, dropped };
  return {
    messages: [
      {
        role: 'user',
        content:
          `[holdfast: the ${dropped} oldest messages of this thread were left out to fit the model's context. ` +
          'If something from earlier is needed, ask the user for it.]',
      },
      ...kept,
    ],
    dropped,
  };
}

/** Context windows of model families holdfast knows, in tokens; anything else is assumed small. */
const contextWindows: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^o[134]/, 200_000],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^gpt-3\.5-turbo/, 16_385],
];

/**
 * The tokens a turn may send for a model: its window less room for the answer, and never more than
 * `cap`, which keeps a thread of a thousand messages from costing a million tokens a step.
 */
export function contextBudgetFor(model: string, options: { cap?: number; reserve?: number } = {}): number {
  const window = contextWindows.find(([pattern]) => pattern.test(model))?.[1] ?? 32_000;
  const reserve = options.reserve ?? 8_000;
  return Math.max(2_000, Math.min(window, options.cap ?? 120_000) - reserve);
}
