import { HoldfastError } from '../../errors.js';

/** Slack errors that retrying will not fix: the thread cannot be written to as things stand. */
const permanent = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'msg_too_long',
  'invalid_blocks',
  'no_text',
  'restricted_action',
  'message_not_found',
  'cant_update_message',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'missing_scope',
]);

export class SlackApiError extends HoldfastError {
  readonly code = 'slack_api_error';
  constructor(
    readonly method: string,
    /** Slack's own error string (`not_in_channel`), or the transport failure. */
    readonly slackError: string,
    options?: { cause?: unknown; retryAfterMs?: number; refused?: boolean },
  ) {
    super(`Slack ${method} failed: ${slackError}`, options);
    this.retryAfterMs = options?.retryAfterMs;
    this.refused = options?.refused ?? false;
  }

  /** Set on a 429: how long Slack asked to wait before calling this method again. */
  readonly retryAfterMs: number | undefined;
  /**
   * Slack answered and refused the call (`ok: false`, a 429), so it did nothing. Otherwise (no answer, a
   * 5xx from whatever stands in front of Slack, an answer that could not be read) it may have acted.
   */
  readonly refused: boolean;

  get permanent(): boolean {
    return permanent.has(this.slackError);
  }
}
