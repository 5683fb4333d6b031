import { HoldfastError } from '../errors.js';

/**
 * A tool declining a call it was asked to make (a path outside the workdir, an internal address, a ref
 * that looks like an option). Thrown from `execute`, it becomes the call's result, worded for the model
 * and the person, and an audit row, like every other refusal.
 */
export class ToolRefusedError extends HoldfastError {
  readonly code = 'tool_refused';
}
