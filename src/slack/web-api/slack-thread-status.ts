import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { SlackApiError } from './slack-errors.js';
import type { SlackLookups } from './slack-lookups.js';
import type { SessionStatus, SlackPort } from './slack-port.js';

/** What `createSlackWebApi` shares with these calls: its client, its rate-limited call and what is refused. */
export interface SlackThreadStatusDeps {
  readonly client: WebClient;
  readonly call: <Result>(
    method: string,
    work: () => Promise<Result>,
    patienceMs?: number,
  ) => Promise<Result>;
  readonly logger: Logger;
  readonly refused: SlackLookups['refused'];
}

const assistantStatus = 'assistant.threads.setStatus';
const agentSessionStatus = 'agents.sessions.setStatus';

/** Refusals of `assistant.threads.setStatus` that hold for every conversation: the token cannot call it. */
const tokenRefusals = new Set([
  'missing_scope',
  'not_allowed_token_type',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'unknown_method',
]);

/**
 * Refusals of `agents.sessions.setStatus` that mean the app has no agent sessions (not declared an agent,
 * an older workspace): the thread status falls back to the assistant status line for good.
 */
const agentSessionRefusals = new Set([
  'unknown_method',
  'missing_scope',
  'not_allowed_token_type',
  'not_an_agent',
  'app_not_agent',
  'feature_not_enabled',
  'method_deprecated',
]);

/** The assistant status line that stands for a session status where the app has no agent sessions. */
export function assistantLineOf(status: SessionStatus): string {
  switch (status) {
    case 'processing':
      return 'is working on it…';
    case 'suspended':
      return 'is waiting for an approval…';
    case 'active':
    case 'closed':
      return '';
  }
}

/**
 * A thread's status: Slack's agent session, or the assistant status line where the app has none. What
 * Slack refuses for good is asked no more, by any port of the process (see `SlackLookups.refused`).
 */
export function createSlackThreadStatus({
  client,
  call,
  logger,
  refused,
}: SlackThreadStatusDeps): Pick<SlackPort, 'setAssistantStatus' | 'setSessionStatus'> {
  /**
   * `throw`: a rate limit or a transient failure is the caller's to handle (the session status waits it
   * out); with `drop`, as for the legacy line, it is logged and dropped, since the line is sent again with
   * what is true then.
   */
  const setAssistantStatus = async (
    target: { channel: string; threadTs: string; status: string },
    failures: 'drop' | 'throw',
  ) => {
    const inChannel = `${assistantStatus} ${target.channel}`;
    if (refused.methods.has(assistantStatus) || refused.inChannels.has(inChannel)) return;
    try {
      await call(
        assistantStatus,
        () =>
          client.assistant.threads.setStatus({
            channel_id: target.channel,
            thread_ts: target.threadTs,
            status: target.status,
          }),
        failures === 'drop' ? 0 : undefined,
      );
    } catch (error) {
      if (error instanceof SlackApiError && tokenRefusals.has(error.slackError))
        refused.methods.add(assistantStatus);
      else if (error instanceof SlackApiError && error.refused && error.retryAfterMs === undefined)
        refused.inChannels.set(inChannel, true);
      else if (failures === 'throw') throw error;
      logger.debug({ err: error }, 'assistant.threads.setStatus is not available here');
    }
  };

  return {
    setAssistantStatus: (target) => setAssistantStatus(target, 'drop'),
    async setSessionStatus(target) {
      if (!refused.methods.has(agentSessionStatus)) {
        try {
          await call(agentSessionStatus, () =>
            client.agents.sessions.setStatus({
              channel_id: target.channel,
              thread_ts: target.threadTs,
              status: target.status,
            }),
          );
          return;
        } catch (error) {
          if (!(error instanceof SlackApiError && agentSessionRefusals.has(error.slackError))) throw error;
          // Said once in the log, whichever port learns it first.
          if (!refused.methods.has(agentSessionStatus))
            logger.info(
              { slackError: error.slackError },
              'Slack agent sessions are not available to this app; the thread shows its status with assistant.threads.setStatus instead',
            );
          refused.methods.add(agentSessionStatus);
        }
      }
      await setAssistantStatus(
        { channel: target.channel, threadTs: target.threadTs, status: assistantLineOf(target.status) },
        'throw',
      );
    },
  };
}
