import type { Turn } from '../../store/records.js';

/**
 * The one line, last in a turn's input, that says whom the request itself mentioned. The model reads the
 * ids so it can notify them, and delivery reads this line (never the model's output) to learn who may be
 * notified. Only the requester writes what comes last in the input, so it adds no one they could not
 * have mentioned themselves.
 */
const lead = '(mentioned in this request:';
const MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;

/** The line to append to a request's input, or undefined when it mentions nobody but holdfast. */
export async function mentionsLine(
  eventText: string,
  options: { botUserId: string; userName: (userId: string) => Promise<string | undefined> },
): Promise<string | undefined> {
  const ids = [...new Set([...eventText.matchAll(MENTION)].map((match) => match[1] as string))].filter(
    (id) => id !== options.botUserId,
  );
  if (ids.length === 0) return undefined;
  const people = await Promise.all(ids.map(async (id) => `@${(await options.userName(id)) ?? id} <@${id}>`));
  return `${lead} ${people.join(', ')})`;
}

/** Who an answer may notify, by id and by the name the model reads: the requester and whom they mentioned. */
export interface AllowedMentions {
  readonly ids: ReadonlySet<string>;
  readonly names: ReadonlyMap<string, string>;
}

export async function allowedMentions(
  turn: Pick<Turn, 'requestedBy' | 'inputText'>,
  userName: (userId: string) => Promise<string | undefined>,
): Promise<AllowedMentions> {
  const names = new Map<string, string>();
  const requester = await userName(turn.requestedBy).catch(() => undefined);
  if (requester) names.set(requester, turn.requestedBy);
  const ids = new Set([turn.requestedBy]);
  const last = turn.inputText.slice(turn.inputText.lastIndexOf('\n') + 1);
  if (last.startsWith(lead)) {
    for (const match of last.matchAll(/@([^\s<>,()]+) <@([UW][A-Z0-9]+)>/g)) {
      names.set(match[1] as string, match[2] as string);
      ids.add(match[2] as string);
    }
  }
  return { ids, names };
}

/**
 * `@alice` written by the model, for someone it may notify, becomes Slack's `<@U…>` (outside code, where
 * it stays text): people read the answer addressed to them the way the model wrote it.
 */
export function linkAllowedNames(text: string, allowed: AllowedMentions): string {
  if (allowed.names.size === 0) return text;
  const names = [...allowed.names.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(^|[^\\w<@])@(${names.join('|')})(?![\\w-])`, 'g');
  // Backticks alternate code and prose; a fence is three of them, so it flips the same way.
  return text
    .split('`')
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part.replace(
            pattern,
            (_all, before: string, name: string) => `${before}<@${allowed.names.get(name)}>`,
          ),
    )
    .join('`');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
