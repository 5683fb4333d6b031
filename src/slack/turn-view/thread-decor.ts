import type { Logger } from 'pino';
import { conversationId, type ThreadKey } from '../../store/conversation-id.js';
import type { SessionStatus, SlackPort } from '../web-api/slack-port.js';
import { ThreadLanes } from './thread-lanes.js';
import { statusReactions, type ThreadStatus } from './turn-status.js';

/**
 * What a thread should show of one turn: the reaction on the message that asked, and the thread's agent
 * session status. Each is a wish, `certain` or not. What is only nice to have (an hourglass while it
 * works, a bell while it waits, "processing") is sent only while its method has budget to spare, and is
 * simply not shown otherwise; what ends a turn (the final reaction, and moving the session off a status
 * that was shown) waits out Slack's limits until it is sent.
 */
export interface DecorWish {
  /** The reaction the message should carry; `none` takes every status reaction off. */
  readonly reaction?: ThreadStatus | 'none';
  readonly session?: SessionStatus;
  /** Sent however long Slack asks it to wait (a final state), rather than dropped when short. */
  readonly certain: boolean;
  /** Sent even if it is what was last shown (the assistant status line lapses after two minutes). */
  readonly resend?: boolean;
  /**
   * How the session status depends on what the session shows when the wish is sent (not when it is made:
   * a status still on its way counts): `if-shown`, sent only if a status shows (a quick answer never
   * opened a session, so there is nothing to end); `certain-if-shown`, certain if one shows and only nice
   * to have otherwise.
   */
  readonly sessionWhen?: 'if-shown' | 'certain-if-shown';
}

export interface ThreadDecorDeps {
  /** Calls that are only nice to have: dropped at once when their method has no budget to spare. */
  readonly optional: SlackPort;
  /** Calls that must land: they wait out Slack's limits. */
  readonly certain: SlackPort;
  readonly logger: Logger;
}

interface Shown {
  readonly thread: ThreadKey;
  readonly triggerTs: string;
  /** Status reactions this process put on the message and has not taken off. */
  readonly reactions: Set<string>;
  /**
   * Status reactions another process (or this one before a restart) may have put on the message: taken
   * off with the next wish that does not want them.
   */
  readonly maybeElsewhere: Set<string>;
  /** The session status this process last set; undefined while none was shown. */
  session: SessionStatus | undefined;
  /** A session status another process may have shown: the final one must then be sent. */
  sessionMaybeElsewhere: boolean;
  /** The newest wish not applied yet: only the latest state of each is sent. */
  pending: {
    reaction?: { value: ThreadStatus | 'none'; certain: boolean };
    session?: {
      value: SessionStatus;
      certain: boolean;
      resend: boolean;
      when: DecorWish['sessionWhen'];
    };
  };
  scheduled: boolean;
}

/**
 * The status decoration of every turn running here, in order per thread and coalesced per turn: a
 * wish made while an earlier one is still being sent replaces what was not sent yet.
 */
export class ThreadDecor {
  readonly #deps: ThreadDecorDeps;
  readonly #lanes: ThreadLanes;
  readonly #turns = new Map<string, Shown>();

  constructor(deps: ThreadDecorDeps) {
    this.#deps = deps;
    // A final reaction may wait minutes for its method's budget at a busy hour: the slots only bound what
    // is in flight, and Slack's limits are held by the rate limits, so waiting ones must not fill them.
    this.#lanes = new ThreadLanes(deps.logger, { slots: 4_096 });
  }

  /**
   * Starts following a turn's message. `inherited`: what another process (or an earlier run here) may
   * already show on it, taken off or replaced when the turn settles.
   */
  follow(
    turnId: string,
    where: { thread: ThreadKey; triggerTs: string },
    inherited: { reactions?: readonly ThreadStatus[]; session?: boolean } = {},
  ): void {
    // Followed here already: what it shows is known, whatever the turn's row says.
    if (this.#turns.has(turnId)) return;
    this.#turns.set(turnId, {
      thread: where.thread,
      triggerTs: where.triggerTs,
      reactions: new Set(),
      maybeElsewhere: new Set((inherited.reactions ?? []).map((status) => statusReactions[status])),
      session: undefined,
      sessionMaybeElsewhere: inherited.session ?? false,
      pending: {},
      scheduled: false,
    });
  }

  /** Whether a reaction for `status` is on the message as far as this process knows. */
  showing(turnId: string, status: ThreadStatus): boolean {
    return this.#turns.get(turnId)?.reactions.has(statusReactions[status]) ?? false;
  }

  /** Asks for the turn's message to show `wish`. */
  wish(turnId: string, wish: DecorWish): void {
    const shown = this.#turns.get(turnId);
    if (!shown) return;
    // A certain wish replaced by a later one keeps it certain: a state that must land is never dropped.
    const certain = (previous: { certain: boolean } | undefined) =>
      wish.certain || (previous?.certain ?? false);
    const { reaction, session } = shown.pending;
    shown.pending = {
      reaction: wish.reaction === undefined ? reaction : { value: wish.reaction, certain: certain(reaction) },
      session:
        wish.session === undefined
          ? session
          : {
              value: wish.session,
              certain: certain(session),
              resend: wish.resend ?? false,
              when: wish.sessionWhen,
            },
    };
    // Merged into a send not made yet.
    if (shown.scheduled) return;
    shown.scheduled = true;
    void this.#lanes.add(conversationId(shown.thread), async () => {
      shown.scheduled = false;
      const pending = shown.pending;
      shown.pending = {};
      await this.#apply(turnId, shown, pending);
    });
  }

  /** The turn is over here: once what was asked is sent, nothing more is kept of it. */
  forget(turnId: string): void {
    const shown = this.#turns.get(turnId);
    if (!shown) return;
    void this.#lanes.add(conversationId(shown.thread), async () => {
      if (!shown.scheduled && this.#turns.get(turnId) === shown) this.#turns.delete(turnId);
    });
  }

  idle(): Promise<void> {
    return this.#lanes.idle();
  }

  async #apply(turnId: string, shown: Shown, pending: Shown['pending']): Promise<void> {
    const { thread } = shown;
    if (pending.reaction) {
      const { value, certain } = pending.reaction;
      const target = value === 'none' ? undefined : statusReactions[value];
      const port = certain ? this.#deps.certain : this.#deps.optional;
      if (target && !shown.reactions.has(target)) {
        const added = await this.#send(turnId, 'reactions.add', () =>
          port.addReaction({ channel: thread.channelId, ts: shown.triggerTs, name: target }),
        );
        if (added) {
          shown.reactions.add(target);
          shown.maybeElsewhere.delete(target);
        }
      }
      const stale = new Set([...shown.reactions, ...shown.maybeElsewhere]);
      if (target) stale.delete(target);
      for (const name of stale) {
        const removed = await this.#send(turnId, 'reactions.remove', () =>
          port.removeReaction({ channel: thread.channelId, ts: shown.triggerTs, name }),
        );
        if (removed) {
          shown.reactions.delete(name);
          shown.maybeElsewhere.delete(name);
        }
      }
    }
    if (pending.session) {
      const { value, resend, when } = pending.session;
      const showing = shown.session !== undefined || shown.sessionMaybeElsewhere;
      if (when === 'if-shown' && !showing) return;
      if (shown.session === value && !shown.sessionMaybeElsewhere && !resend) return;
      const certain = when === 'certain-if-shown' ? showing : pending.session.certain;
      const port = certain ? this.#deps.certain : this.#deps.optional;
      const sent = await this.#send(turnId, 'agents.sessions.setStatus', () =>
        port.setSessionStatus({ channel: thread.channelId, threadTs: thread.threadTs, status: value }),
      );
      if (sent) {
        shown.session = value;
        shown.sessionMaybeElsewhere = false;
      }
    }
  }

  /** Status is decoration: a call that fails (or is shed) is logged, and never affects the turn. */
  async #send(turnId: string, method: string, call: () => Promise<void>): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (error) {
      this.#deps.logger.debug({ err: error, turnId, method }, 'thread status not updated');
      return false;
    }
  }
}
