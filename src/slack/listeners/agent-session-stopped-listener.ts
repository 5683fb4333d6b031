import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Runtime } from '../../runtime/create-runtime.js';
import { conversationId } from '../../store/conversation-id.js';
import type { SlackPort } from '../web-api/slack-port.js';

export interface AgentSessionStoppedDeps {
  readonly runtime: Runtime;
  /** Moves a session with nothing left to stop off `processing`; a call that must land. */
  readonly slack: SlackPort;
  readonly logger: Logger;
  /** The installation's workspace, for events whose envelope names none. */
  readonly teamId?: string;
}

const stoppedEvent = z.object({
  type: z.literal('agent_session_stopped'),
  channel: z.string().min(1),
  thread_ts: z.string().min(1),
  user: z.string().min(1),
});

/**
 * Slack's own stop button on an agent session (`agent_session_stopped`): it ends the thread's work the way
 * holdfast's Stop button does (for good, its pending requests declined and their cards rewritten, the
 * session closed once the turn settles). Slack does not move the session off `processing` itself, so a
 * thread with nothing left to stop is closed here.
 */
export function registerAgentSessionStoppedListener(app: App, deps: AgentSessionStoppedDeps): void {
  app.event('agent_session_stopped', async ({ event, context }) => {
    const parsed = stoppedEvent.safeParse(event);
    const teamId = context.teamId ?? deps.teamId;
    if (!parsed.success || !teamId) {
      deps.logger.warn({ issues: parsed.error?.issues }, 'ignoring a malformed agent_session_stopped event');
      return;
    }
    const { channel, thread_ts: threadTs, user } = parsed.data;
    const open = await deps.runtime.store.turns.open(
      conversationId({ teamId, channelId: channel, threadTs }),
    );
    let stopped = 0;
    // Any turn of the thread still unfinished is ended: the person asked the thread to stop.
    for (const turn of open) {
      const outcome = await deps.runtime.stop({ turnId: turn.id, userId: user });
      if (outcome.type === 'stopped') stopped += 1;
      else
        deps.logger.info(
          { turnId: turn.id, userId: user, outcome: outcome.type },
          'session stop not applied',
        );
    }
    deps.logger.info({ channel, threadTs, userId: user, stopped }, "Slack's stop button pressed");
    // Whether or not something was running here: a turn that waited, or ran on another replica, has no
    // observer in this process to close its session.
    await deps.slack
      .setSessionStatus({ channel, threadTs, status: 'closed' })
      .catch((error: unknown) => deps.logger.warn({ err: error, channel }, 'could not close the session'));
  });
}
