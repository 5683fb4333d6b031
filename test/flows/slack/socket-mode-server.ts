import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FakeSlackApi } from '../../support/fake-slack-api.js';

/** Slack's side of a Socket Mode connection: says hello, pushes envelopes, collects the acks. */
export async function startSocketModeServer() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const received: Array<Record<string, unknown>> = [];
  const sockets: WebSocket[] = [];
  server.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'applink-test', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0HOLDFAST' },
      }),
    );
  });
  onTestFinished(async () => {
    for (const socket of sockets) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  const url = `ws://127.0.0.1:${port}/`;
  return {
    url,
    /** The Slack harness's `beforeStart`: holdfast starts in Socket Mode, connecting here. */
    async beforeStart(api: FakeSlackApi): Promise<Record<string, string>> {
      api.setSocketModeUrl(url);
      return { SLACK_APP_TOKEN: api.appToken };
    },
    received,
    connected: () => sockets.length > 0,
    push(envelope: unknown) {
      for (const socket of sockets) socket.send(JSON.stringify(envelope));
    },
    /** A frame exactly as given, for messages that are not JSON at all. */
    pushRaw(frame: string | Buffer) {
      for (const socket of sockets) socket.send(frame);
    },
  };
}
