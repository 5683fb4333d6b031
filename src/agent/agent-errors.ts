import { HoldfastError } from '../errors.js';

export class MaxStepsExceededError extends HoldfastError {
  readonly code = 'max_steps_exceeded';
  constructor(readonly maxSteps: number) {
    super(`The agent took more than ${maxSteps} steps without a final answer`);
  }
}

export class EmptyModelReplyError extends HoldfastError {
  readonly code = 'empty_model_reply';
  constructor() {
    super('The model replied with neither text nor tool calls');
  }
}

/**
 * Someone pressed Stop: the turn ends here for good, whatever it was doing (it is never re-run). Who did is
 * `stoppedBy`, kept as data on the turn; the chat adapter names them, the core never writes a mention.
 */
export class TurnStoppedError extends HoldfastError {
  static readonly code = 'turn_stopped';
  readonly code = TurnStoppedError.code;
  constructor(readonly stoppedBy: string) {
    super('Stopped by a person');
  }
}

/** The turn was stopped from outside (shutdown); it is re-run from its transcript later. */
export class TurnAbortedError extends HoldfastError {
  readonly code = 'turn_aborted';
}
