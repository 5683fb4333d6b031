/**
 * The one error base. Every failure holdfast reports carries a stable `code`; callers match on the class
 * or the code, never on `message`.
 */
export abstract class HoldfastError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Configuration (environment or policy file) is missing or malformed; start-up stops. */
export class ConfigError extends HoldfastError {
  readonly code = 'config_invalid';
  constructor(
    message: string,
    readonly issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
