import { createServer } from 'node:net';
import {
  type CheckOutcome,
  ok,
  problem,
  type StartupCheck,
  StartupCheckError,
  skipped,
  warning,
} from './startup-check.js';

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
        const outcome =
          describeListenFailure(failure, options) ??
          problem(
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

/** A listen error as an operator reads it, or undefined for one that is not about the port. */
export function describeListenFailure(
  error: unknown,
  { port, purpose, variable = 'PORT' }: Pick<PortCheckOptions, 'port' | 'purpose' | 'variable'>,
): CheckOutcome | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return problem(
      `${variable}=${port} (${purpose}) is already in use by another process`,
      `Stop that process (\`lsof -i :${port}\` or \`ss -ltnp\` shows which), or set ${variable} to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return problem(
      `${variable}=${port} (${purpose}) needs privileges holdfast does not have (ports below 1024)`,
      `Set ${variable} to 1024 or above (3000, 8080) and map the public port to it in your platform.`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return problem(
      `${variable}=${port} (${purpose}) cannot be bound on this machine`,
      `Set ${variable} to a free port.`,
    );
  }
  return undefined;
}

/** A real server's listen failure as the start-up problem naming PORT; any other error as it is. */
export function listenFailure(
  error: unknown,
  options: Pick<PortCheckOptions, 'port' | 'purpose' | 'variable'>,
): unknown {
  const outcome = describeListenFailure(error, options);
  return outcome ? new StartupCheckError([{ name: 'port', outcome }]) : error;
}

/** Whether an error came from binding a server socket (not from connecting somewhere). */
export function isListenError(error: unknown): error is NodeJS.ErrnoException & { port?: number } {
  return (error as NodeJS.ErrnoException | undefined)?.syscall === 'listen';
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
