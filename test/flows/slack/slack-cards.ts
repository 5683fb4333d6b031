/** Reading what holdfast left behind: approval cards and their buttons, and rows in the database file. */
import Database from 'better-sqlite3';
import type { FakeSlackApi, SlackApiCall } from '../../support/fake-slack-api.js';

export interface PostedCard {
  readonly requestId: string;
  /** The block id of the card's buttons, echoed in every click on them. */
  readonly blockId: string;
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string;
  readonly call: SlackCall;
}

/** The approval card posted in a thread, with its request id read from its first button. */
export async function waitForCard(
  api: FakeSlackApi,
  threadTs: string,
  /** Which posted message is the card (default: an approval card, by its fallback text). */
  isCard: (call: SlackApiCall) => boolean = (call) =>
    String(call.params.text ?? '').startsWith('Approval needed'),
): Promise<PostedCard> {
  const call = await api.waitFor(
    'chat.postMessage',
    (candidate) =>
      candidate.params.thread_ts === threadTs && isCard(candidate) && candidate.response.ok === true,
  );
  const actions = approvalActionBlocks(call.params.blocks)[0];
  const requestId = actions?.elements[0]?.value;
  if (!actions || typeof requestId !== 'string') throw new Error('the approval card has no buttons');
  return {
    requestId,
    blockId: actions.block_id,
    channel: String(call.params.channel),
    ts: String(call.response.ts),
    threadTs,
    call,
  };
}

/** The actions blocks holdfast's approval buttons sit in, in a message or view. */
export function approvalActionBlocks(
  blocks: unknown,
): Array<{ block_id: string; elements: Array<Record<string, unknown>> }> {
  if (!Array.isArray(blocks)) return [];
  return blocks.filter(
    (block): block is { type: 'actions'; block_id: string; elements: Array<Record<string, unknown>> } =>
      block?.type === 'actions' && String(block.block_id).startsWith('holdfast.approval:'),
  );
}

type SlackCall = FakeSlackApi['calls'][number];

/** Every button in a message's actions blocks. */
export function approvalButtons(blocks: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(blocks)) return [];
  return blocks
    .filter((block): block is { type: 'actions'; elements: unknown[] } => block?.type === 'actions')
    .flatMap((block) => block.elements as Array<Record<string, unknown>>);
}

/** Rows as the database file holds them, read through a separate read-only connection. */
export function readRows(
  databasePath: string,
  sql: string,
  ...params: unknown[]
): Array<Record<string, unknown>> {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}
