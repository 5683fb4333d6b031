import { fork } from 'node:child_process';
import path from 'node:path';
import { type FakesReport, type FromFakes, fromFakesSchema, type ToFakes } from './fakes-protocol.js';

export interface Fakes {
  readonly ready: Extract<FromFakes, { type: 'ready' }>;
  report(): Promise<FakesReport>;
  stop(): Promise<void>;
}

/** Starts fakes-process.ts and waits until its servers listen. */
export async function startFakes(
  start: Extract<ToFakes, { type: 'start' }>,
  onAnswer: (answer: { thread: number; seq: number; at: number }) => void,
): Promise<Fakes> {
  const child = fork(path.join(import.meta.dirname, 'fakes-process.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let reported: ((report: FakesReport) => void) | undefined;
  const ready = await new Promise<Extract<FromFakes, { type: 'ready' }>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the fakes process exited (${code}) before it was ready`)));
    child.on('message', (raw) => {
      const message = fromFakesSchema.parse(raw);
      switch (message.type) {
        case 'ready':
          resolve(message);
          return;
        case 'answer':
          onAnswer(message);
          return;
        case 'report':
          reported?.(message.report);
          return;
      }
    });
    child.send(start satisfies ToFakes);
  });
  return {
    ready,
    report() {
      return new Promise((resolve) => {
        reported = resolve;
        child.send({ type: 'report' } satisfies ToFakes);
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
