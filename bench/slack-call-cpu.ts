/**
 * The CPU one Slack Web API call costs holdfast's process: the real `WebClient` posting to a stand-in on
 * loopback that runs in a child process (so its own CPU is not counted), once through WHATWG fetch (the
 * client's default) and once through holdfast's transport, in alternating rounds of the same calls.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { WebClient } from '@slack/web-api';
import { createWebApiTransport } from '../src/slack/web-api-transport.js';
import { percentile } from './percentile.js';

export interface SlackCallCpu {
  readonly fetchMs: number;
  readonly transportMs: number;
}

/** Answers every Web API call with what `chat.postMessage` answers, as fast as it can. */
const standIn = `
const server = require('node:http').createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end('{"ok":true,"channel":"C0BENCH","ts":"1700000000.000100","message":{"text":"done"}}');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startStandIn(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['-e', standIn], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { child, url: `http://127.0.0.1:${port.toString().trim()}/api/` };
}

/** CPU milliseconds per call, p50 over `rounds` alternating rounds of `calls` calls, 20 at a time. */
export async function measureSlackCallCpu(options: { calls: number; rounds: number }): Promise<SlackCallCpu> {
  const { child, url } = await startStandIn();
  const transport = createWebApiTransport();
  const clients = {
    fetch: new WebClient('xoxb-bench', { slackApiUrl: url, retryConfig: { retries: 0 } }),
    transport: new WebClient('xoxb-bench', {
      slackApiUrl: url,
      retryConfig: { retries: 0 },
      fetch: transport.fetch,
    }),
  };
  const perCall = { fetch: [] as number[], transport: [] as number[] };
  const round = async (client: WebClient, calls: number): Promise<number> => {
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < calls)
          await client.chat.postMessage({
            channel: 'C0BENCH',
            text: 'The no-op ran. Done.',
            thread_ts: '1.2',
          });
      }),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / calls;
  };
  try {
    for (const client of Object.values(clients)) await round(client, Math.min(200, options.calls));
    for (let i = 0; i < options.rounds; i++) {
      perCall.fetch.push(await round(clients.fetch, options.calls));
      perCall.transport.push(await round(clients.transport, options.calls));
    }
  } finally {
    await transport.close();
    child.kill();
  }
  return { fetchMs: percentile(perCall.fetch, 50), transportMs: percentile(perCall.transport, 50) };
}
