/**
 * The CPU one call to Slack or to the model costs holdfast's process: the real `WebClient` posting a
 * message, and the real OpenAI client streaming a short reply, to a stand-in on loopback that runs in a
 * child process (so its own CPU is not counted), once through WHATWG fetch (both clients' default) and
 * once through holdfast's transport, in alternating rounds of the same calls.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { WebClient } from '@slack/web-api';
import OpenAI from 'openai';
import { createHttpTransport } from '../src/http/http-transport.js';
import { percentile } from './percentile.js';

export interface CallCpu {
  readonly fetchMs: number;
  readonly transportMs: number;
}

/**
 * Answers a chat completion with a streamed reply of 16 words (as holdfast asks for them), and every
 * other call with what `chat.postMessage` answers, as fast as it can.
 */
const standIn = `
const chunk = (delta, finish) => 'data: ' + JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk',
  created: 1, model: 'gpt-bench', choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
const words = 'The no-op ran on web-1 and everything is done now, nothing else to do here.'.split(' ');
const reply = chunk({ role: 'assistant', content: '' }, null) + words.map((w) => chunk({ content: w + ' ' }, null)).join('')
  + chunk({}, 'stop') + 'data: ' + JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1,
  model: 'gpt-bench', choices: [], usage: { prompt_tokens: 200, completion_tokens: 16, total_tokens: 216 } })
  + '\\n\\ndata: [DONE]\\n\\n';
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (request.url.endsWith('/chat/completions')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(reply);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end('{"ok":true,"channel":"C0BENCH","ts":"1700000000.000100","message":{"text":"done"}}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startStandIn(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['-e', standIn], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { child, origin: `http://127.0.0.1:${port.toString().trim()}` };
}

/** A conversation of the size a turn sends: a system prompt and a few exchanges. */
const messages = [
  { role: 'system' as const, content: 'You are holdfast, a chat-ops assistant. '.repeat(20) },
  ...Array.from({ length: 6 }, (_, i) => ({
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${i}: restart web-1 and tell me when it is back. `.repeat(4),
  })),
];

/**
 * CPU milliseconds per call, p50 over `rounds` alternating rounds: `calls` Slack posts 20 at a time, and
 * a tenth as many streamed model replies 10 at a time.
 */
export async function measureCallCpu(options: {
  calls: number;
  rounds: number;
}): Promise<{ slack: CallCpu; model: CallCpu }> {
  const { child, origin } = await startStandIn();
  const transport = createHttpTransport();
  const slack = {
    fetch: new WebClient('xoxb-bench', { slackApiUrl: `${origin}/api/`, retryConfig: { retries: 0 } }),
    transport: new WebClient('xoxb-bench', {
      slackApiUrl: `${origin}/api/`,
      retryConfig: { retries: 0 },
      fetch: transport.fetch,
    }),
  };
  const model = {
    fetch: new OpenAI({ apiKey: 'sk-bench', baseURL: `${origin}/v1`, maxRetries: 0 }),
    transport: new OpenAI({
      apiKey: 'sk-bench',
      baseURL: `${origin}/v1`,
      maxRetries: 0,
      fetch: transport.fetch,
    }),
  };
  const post = (client: WebClient) =>
    client.chat.postMessage({ channel: 'C0BENCH', text: 'The no-op ran. Done.', thread_ts: '1.2' });
  const stream = async (client: OpenAI) => {
    const chunks = await client.chat.completions.create({
      model: 'gpt-bench',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of chunks) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  };
  const round = async (call: () => Promise<unknown>, calls: number, inFlight: number): Promise<number> => {
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < calls) await call();
      }),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / calls;
  };
  const modelCalls = Math.max(1, Math.round(options.calls / 10));
  const perCall = {
    slack: { fetch: [] as number[], transport: [] as number[] },
    model: { fetch: [] as number[], transport: [] as number[] },
  };
  try {
    for (const way of ['fetch', 'transport'] as const) {
      await round(() => post(slack[way]), Math.min(200, options.calls), 20);
      await round(() => stream(model[way]), Math.min(50, modelCalls), 10);
    }
    for (let i = 0; i < options.rounds; i++) {
      for (const way of ['fetch', 'transport'] as const) {
        perCall.slack[way].push(await round(() => post(slack[way]), options.calls, 20));
        perCall.model[way].push(await round(() => stream(model[way]), modelCalls, 10));
      }
    }
  } finally {
    await transport.close();
    child.kill();
  }
  const summary = (samples: { fetch: number[]; transport: number[] }): CallCpu => ({
    fetchMs: percentile(samples.fetch, 50),
    transportMs: percentile(samples.transport, 50),
  });
  return { slack: summary(perCall.slack), model: summary(perCall.model) };
}
