import { HoldfastError } from '../errors.js';

/** Where a server was to listen, for people: "Slack events" on PORT. */
export interface ListenTarget {
  readonly port: number;
  readonly purpose: string;
  /** The variable that sets the port (PORT unless told). */
  readonly variable?: string;
}

/** A server could not listen where it was told to: what went wrong and what to change. */
export class PortUnavailableError extends HoldfastError {
  readonly code = 'port_unavailable';
  constructor(
    readonly problem: string,
    readonly fix: string,
    options: { readonly cause: unknown },
  ) {
    super(`port: ${problem}. ${fix}`, options);
  }
}

/** Whether an error came from binding a server socket (not from connecting somewhere). */
export function isListenError(error: unknown): error is NodeJS.ErrnoException & { port?: number } {
  return (error as NodeJS.ErrnoException | undefined)?.syscall === 'listen';
}

/** A listen error as an operator reads it, or undefined for one that is not about the port. */
export function describeListenFailure(
  error: unknown,
  { port, purpose, variable = 'PORT' }: ListenTarget,
): { readonly problem: string; readonly fix: string } | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return {
        problem: `${variable}=${port} (${purpose}) is already in use by another process`,
        fix: `Stop that process (\`lsof -i :${port}\` or \`ss -ltnp\` shows which), or set ${variable} to a free port.`,
      };
    case 'EACCES':
      return {
        problem: `${variable}=${port} (${purpose}) needs privileges holdfast does not have (ports below 1024)`,
        fix: `Set ${variable} to 1024 or above (3000, 8080) and map the public port to it in your platform.`,
      };
    case 'EADDRNOTAVAIL':
      return {
        problem: `${variable}=${port} (${purpose}) cannot be bound on this machine`,
        fix: `Set ${variable} to a free port.`,
      };
    default:
      return undefined;
  }
}

/** What a server that failed to listen throws: the error in words where it is about the port. */
export function listenFailure(error: unknown, target: ListenTarget): unknown {
  const described = describeListenFailure(error, target);
  return described ? new PortUnavailableError(described.problem, described.fix, { cause: error }) : error;
}
