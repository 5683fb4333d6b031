import { z } from 'zod';
import { type Delivery, formDelivery, jsonDelivery } from './deliver.js';
import { type LocalModals, triggerIdFor } from './local-modals.js';
import type { LocalMessage, LocalStore } from './local-store.js';
import { findChannel, findUser, localBot, localTeam } from './seed.js';
import { blockActionsBase, eventEnvelope } from './slack-payloads.js';
import { wireMessage } from './wire-message.js';

const userId = z.string().refine((id) => findUser(id)?.id === id, 'a seeded user id');
const channelId = z.string().refine((id) => findChannel(id) !== undefined, 'a seeded channel id');
/**
 * A click holdfast did not receive (it is starting or stopped): nothing was decided, and the page keeps
 * the click to send again rather than let it vanish.
 */
const unreachable = {
  ok: false,
  error: 'holdfast_unreachable',
  message: 'holdfast did not receive the click',
} as const;

/** Slack refuses a message longer than this (`msg_too_long`). */
const slackMessageLimit = 40_000;
export const uiMessageSchema = z.object({
  user: userId,
  channel: channelId,
  text: z.string().min(1),
  thread_ts: z.string().optional(),
});

/** The refusal of a message Slack would not take, in words the page shows beside the composer. */
function refuseTooLong(input: z.output<typeof uiMessageSchema>) {
  if (input.text.length <= slackMessageLimit) return undefined;
  return {
    ok: false,
    error: 'msg_too_long',
    message:
      `Not sent: this message is ${input.text.length.toLocaleString('en')} characters long, and Slack takes ` +
      `at most ${slackMessageLimit.toLocaleString('en')}. Shorten it and send it again.`,
  } as const;
}
export const uiClickSchema = z.object({
  user: userId,
  channel: channelId.optional(),
  message_ts: z.string().optional(),
  ephemeral_id: z.number().int().optional(),
  action_id: z.string().min(1),
  value: z.string().default(''),
  block_id: z.string().optional(),
});
export const uiHomeSchema = z.object({ user: userId });
/** A modal's inputs as the page read them: typed text, or the value of the chosen option. */
export const uiSubmitSchema = z.object({
  user: userId,
  view_id: z.string().min(1).max(100),
  values: z.record(
    z.string().max(255),
    z.record(
      z.string().max(255),
      z.union([
        z.object({ text: z.string().max(3000) }),
        z.object({ option: z.string().max(150) }),
        z.object({ options: z.array(z.string().max(150)).max(100) }),
      ]),
    ),
  ),
});
export const uiCloseModalSchema = z.object({ user: userId, view_id: z.string().min(1).max(100) });
const commandAckSchema = z.object({ text: z.string().optional(), blocks: z.array(z.unknown()).optional() });

export interface UiActionDeps {
  readonly store: LocalStore;
  readonly modals: LocalModals;
  readonly deliver: (delivery: Delivery) => Promise<{ status: number; text: string } | undefined>;
  /** Where holdfast answers a click or a command (Slack's `response_url`). */
  readonly responseUrl: (channel: string, user: string, threadTs?: string) => string;
  readonly changed: () => void;
  readonly now: () => number;
}

/** What a person does on the page, turned into the Events API and interactivity requests Slack would send. */
export function createUiActions(deps: UiActionDeps) {
  const { store, modals, deliver, responseUrl, changed, now } = deps;
  const deliverEvent = (event: Record<string, unknown>) => deliver(jsonDelivery(eventEnvelope(event, now())));

  const postUserMessage = async (input: z.output<typeof uiMessageSchema>) => {
    const tooLong = refuseTooLong(input);
    if (tooLong) return tooLong;
    if (input.text.trim().startsWith('/approvals')) {
      const user = findUser(input.user);
      const channel = findChannel(input.channel);
      const ack = await deliver(
        formDelivery({
          token: 'local',
          team_id: localTeam.id,
          team_domain: localTeam.domain,
          channel_id: input.channel,
          channel_name: channel?.name ?? '',
          user_id: input.user,
          user_name: user?.name ?? '',
          command: '/approvals',
          text: input.text.trim().slice('/approvals'.length).trim(),
          api_app_id: localBot.appId,
          response_url: responseUrl(input.channel, input.user, input.thread_ts),
          trigger_id: triggerIdFor(input.user, now()),
        }),
      );
      // Some commands answer in the acknowledgement itself; Slack shows that privately too.
      const answer = ack?.text ? commandAckSchema.safeParse(safeJson(ack.text)) : undefined;
      if (answer?.success && (answer.data.text || answer.data.blocks)) {
        store.addEphemeral({
          channel: input.channel,
          user: input.user,
          threadTs: input.thread_ts,
          text: answer.data.text ?? '',
          blocks: answer.data.blocks ?? [],
        });
        changed();
      }
      return { ok: true };
    }
    const message = store.addMessage({
      channel: input.channel,
      threadTs: input.thread_ts,
      user: input.user,
      text: input.text,
      blocks: [],
    });
    changed();
    const channel = findChannel(input.channel);
    const event = {
      ...wireMessage(message),
      channel: message.channel,
      channel_type: channel?.type === 'im' ? 'im' : 'channel',
      event_ts: message.ts,
      team: localTeam.id,
    };
    const delivered = await deliverEvent(event);
    if (channel?.type !== 'im' && input.text.includes(`<@${localBot.userId}>`))
      await deliverEvent({ ...event, type: 'app_mention', channel_type: undefined });
    // Posted, as in Slack, but holdfast never heard of it: the page says so rather than show silence.
    return { ok: true, ts: message.ts, ...(delivered ? {} : { delivered: false }) };
  };

  const click = async (input: z.output<typeof uiClickSchema>) => {
    const common = blockActionsBase(input, now());
    if (!input.channel) {
      const view = store.view(input.user);
      const delivered = await deliver(
        formDelivery({
          payload: JSON.stringify({
            ...common,
            container: { type: 'view', view_id: `V${input.user}` },
            view: { id: `V${input.user}`, team_id: localTeam.id, ...(view as object) },
          }),
        }),
      );
      return delivered ? { ok: true } : unreachable;
    }
    const message: LocalMessage | undefined = input.message_ts
      ? store.message(input.channel, input.message_ts)
      : undefined;
    const ephemeral = input.ephemeral_id !== undefined;
    const threadTs = message?.threadTs;
    const delivered = await deliver(
      formDelivery({
        payload: JSON.stringify({
          ...common,
          container: {
            type: 'message',
            message_ts: input.message_ts ?? '',
            channel_id: input.channel,
            is_ephemeral: ephemeral,
          },
          channel: { id: input.channel, name: findChannel(input.channel)?.name },
          ...(message ? { message: { ...wireMessage(message), type: 'message' } } : {}),
          state: { values: {} },
          response_url: responseUrl(input.channel, input.user, threadTs),
        }),
      }),
    );
    return delivered ? { ok: true } : unreachable;
  };

  const openHome = async ({ user }: z.output<typeof uiHomeSchema>) => {
    await deliverEvent({
      type: 'app_home_opened',
      user,
      channel: findUser(user)?.dm,
      tab: 'home',
      event_ts: String(now() / 1000),
    });
    return { ok: true };
  };

  /** Sends the modal as Slack would (`view_submission`); it closes unless holdfast answers with errors. */
  const submitModal = async (input: z.output<typeof uiSubmitSchema>) => {
    const modal = modals.of(input.user);
    if (!modal || modal.id !== input.view_id) return { ok: false, error: 'not_found' };
    const user = findUser(input.user);
    const values = Object.fromEntries(
      Object.entries(input.values).map(([blockId, actions]) => [
        blockId,
        Object.fromEntries(
          Object.entries(actions).map(([actionId, value]) => [
            actionId,
            'text' in value
              ? { type: 'plain_text_input', value: value.text === '' ? null : value.text }
              : 'options' in value
                ? {
                    type: 'multi_static_select',
                    selected_options: value.options.map((option) => ({ value: option })),
                  }
                : { type: 'static_select', selected_option: { value: value.option } },
          ]),
        ),
      ]),
    );
    const ack = await deliver(
      formDelivery({
        payload: JSON.stringify({
          type: 'view_submission',
          team: { id: localTeam.id, domain: localTeam.domain },
          user: { id: input.user, username: user?.name, name: user?.name, team_id: localTeam.id },
          api_app_id: localBot.appId,
          token: 'local',
          trigger_id: triggerIdFor(input.user, now()),
          view: { ...modal.view, id: modal.id, team_id: localTeam.id, state: { values } },
          response_urls: [],
          enterprise: null,
          is_enterprise_install: false,
        }),
      }),
    );
    const answer = ack?.text ? safeJson(ack.text) : undefined;
    const errors =
      typeof answer === 'object' && answer !== null && 'response_action' in answer ? answer : undefined;
    if (errors) return { ok: false, errors };
    modals.close(input.user, modal.id);
    changed();
    return { ok: true };
  };

  const closeModal = async (input: z.output<typeof uiCloseModalSchema>) => {
    modals.close(input.user, input.view_id);
    changed();
    return { ok: true };
  };

  return { postUserMessage, click, openHome, submitModal, closeModal };
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
