import { createServer } from 'node:net';
import { describeListenFailure } from '../http/port-unavailable.js';
import { ok, problem, type StartupCheck, skipped, warning } from './startup-check.js';

export interface PortCheckOptions {
  readonly port: number;
  /** The address the real server binds (the local workspace uses loopback); all interfaces by default. */
  readonly host?: string;
  /** What listens there, for people: "Slack events (HTTP mode)". */
  readonly purpose: string;
  /** The variable that sets the port, named in the message (PORT unless told). */
  readonly variable?: string;
  /**
   * Doctor may run beside a holdfast that already listens there: a taken port is then only a warning,
   * since the process holding it may be holdfast itself.
   */
  readonly mayBeRunning?: boolean;
}

/**
 * Binds the port for a moment and lets it go. What a real server meets later (the port taken in between)
 * is reported the same way by `describeListenFailure`.
 */
export function portCheck(options: PortCheckOptions): StartupCheck {
  return {
    name: 'port',
    async run() {
      if (options.port === 0) return skipped('PORT=0: the system picks a free port');
      const failure = await tryListen(options.port, options.host);
      if (failure) {
        const described = describeListenFailure(failure, options);
        const outcome = described
          ? problem(described.problem, described.fix)
          : problem(
              `port ${options.port} cannot be used: ${failure.message}`,
              `Set ${options.variable ?? 'PORT'} to a free port.`,
            );
        if (options.mayBeRunning && outcome.type === 'problem' && isInUse(failure)) {
          return warning(`${outcome.problem} (holdfast itself, if it is running)`, outcome.fix);
        }
        return outcome;
      }
      return ok(`port ${options.port} is free for ${options.purpose}`);
    },
  };
}

function isInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

function tryListen(port: number, host: string | undefined): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(error));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
