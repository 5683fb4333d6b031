import fc from 'fast-check';
import { channel, people, type SlackHarness, userTs } from './slack-harness.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = ReadonlyArray<string | number>;

/** Printable ASCII without spaces: anything fetch will put in a header as given. */
export const headerText = fc.stringMatching(/^[!-~]{0,40}$/);

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Every path to a value inside `value`, through objects and arrays alike. */
export function pathsIn(value: Json, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: Array<[string | number, Json]> = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsIn(child, [...prefix, key])]);
}

function valueAt(value: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, value);
}

function replaced(value: Json, path: Path, next: Json): Json {
  const copy = structuredClone(value);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, Json>;
  parent[path.at(-1) as string | number] = next;
  return copy;
}

/** `base` with the value at one of `paths` replaced by a JSON value of another type. */
export function wrongTypeAtOneField(base: Json, paths: readonly Path[]): fc.Arbitrary<Json> {
  return fc.constantFrom(...paths).chain((path) =>
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((next) => kindOf(next) !== kindOf(valueAt(base, path)))
      .map((next) => replaced(base, path, next as Json)),
  );
}

/**
 * An approval click on a pending card by someone who may not approve: whatever is done to its fields, it
 * must decide nothing.
 */
export function clickByMallory(
  slack: SlackHarness,
  card: { requestId: string; channel: string; ts: string; threadTs: string },
): Json {
  const { teamId } = slack.api.identity;
  return {
    type: 'block_actions',
    team: { id: teamId, domain: 'holdfast-test' },
    user: { id: people.mallory, username: 'mallory', team_id: teamId },
    api_app_id: 'A0HOLDFAST',
    container: { type: 'message', message_ts: card.ts, channel_id: card.channel, is_ephemeral: false },
    channel: { id: card.channel, name: 'ops' },
    message: { type: 'message', ts: card.ts, thread_ts: card.threadTs, text: 'Approval needed' },
    response_url: slack.api.responseUrl('fuzz'),
    actions: [
      {
        action_id: 'holdfast.approval.allow',
        block_id: `holdfast.approval:${card.requestId}`,
        value: card.requestId,
        type: 'button',
        action_ts: `${slack.nowSeconds()}.000100`,
      },
    ],
  };
}

/** A well-formed mention of the bot: as it stands it rightly starts a turn. */
export function mentionCallback(slack: SlackHarness): Json {
  const { teamId, botUserId } = slack.api.identity;
  return {
    team_id: teamId,
    api_app_id: 'A0HOLDFAST',
    type: 'event_callback',
    event_id: 'Ev0FUZZ',
    event: { type: 'app_mention', user: people.alice, text: `<@${botUserId}> deploy`, ts: userTs(), channel },
    authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
  };
}

/**
 * The fields of a mention that holdfast (or Bolt, routing it) relies on. A wrong type in any of them must
 * stop the mention; a wrong type elsewhere (say `api_app_id`) leaves an authentic mention that may run.
 */
export const mentionFieldsRelied: readonly Path[] = [
  ['event'],
  ['event', 'type'],
  ['event', 'user'],
  ['event', 'text'],
  ['event', 'ts'],
  ['event', 'channel'],
  ['team_id'],
  ['event_id'],
  ['authorizations'],
  ['authorizations', 0],
];
