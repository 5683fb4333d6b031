import type { HomeView, KnownBlock } from '@slack/types';
import { type CardOptions, header, mrkdwn, toolCode } from './approval-card-parts.js';
import { entryTitle, packEntries, plural } from './approval-inbox-entry.js';
import type { ApprovalOutcome, ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import { describeOutcome } from './describe-outcome.js';
import { type GrantListItem, grantLine } from './grant-list.js';

export interface AppHomeInput extends CardOptions {
  /** Pending approvals the viewer may decide, in the order to show them. */
  readonly pending: readonly ApprovalView[];
  /** Recent decisions, newest first. */
  readonly recent: ReadonlyArray<{ readonly view: ApprovalView; readonly outcome: ApprovalOutcome }>;
  readonly viewer: string;
  /** Standing grants the viewer made, to see and revoke; undefined leaves the section out. */
  readonly grants?: readonly GrantListItem[];
}

const GRANTS_MAX = 10;

// Two headers, the divider, and an intro-or-"more" line under each list.
const FIXED_BLOCKS = 7;
const RECENT_MAX = 20;

function moreNote(shown: number, total: number): KnownBlock {
  return { type: 'context', elements: [mrkdwn(`Showing ${shown} of ${total}.`)] };
}

function recentBlock(item: AppHomeInput['recent'][number], options: CardOptions): KnownBlock {
  const { line } = describeOutcome(item.outcome, options);
  return {
    type: 'section',
    text: mrkdwn(`${line}\n${toolCode(item.view.toolName)} ${entryTitle(item.view, 200)}`),
  };
}

/**
 * The App Home tab: the same inbox as `/approvals` (with buttons) and the latest decisions, within the
 * 100-block limit of a view. Pending requests get the room first; history fills what is left.
 */
export function buildAppHome(input: AppHomeInput): HomeView {
  const grants = (input.grants ?? []).slice(0, GRANTS_MAX);
  // The grants section: a divider, a header, one line each (or one saying there are none), a "more" note.
  const grantBlocks = input.grants === undefined ? 0 : 3 + Math.max(1, grants.length);
  const recentWanted = Math.min(input.recent.length, RECENT_MAX);
  const pendingRoom = BLOCK_KIT_LIMITS.surfaceBlocks - FIXED_BLOCKS - grantBlocks - recentWanted;
  const packed = packEntries(
    input.pending,
    { maxBlocks: pendingRoom, maxText: Number.POSITIVE_INFINITY },
    input,
  );
  const recentRoom = BLOCK_KIT_LIMITS.surfaceBlocks - FIXED_BLOCKS - grantBlocks - packed.blocks.length;
  const recent = input.recent.slice(0, Math.min(RECENT_MAX, recentRoom));

  const blocks: KnownBlock[] = [header('Waiting for approval')];
  if (input.pending.length === 0) {
    blocks.push({ type: 'section', text: mrkdwn('Nothing is waiting for approval that you can decide.') });
  } else {
    blocks.push({ type: 'context', elements: [mrkdwn(plural(input.pending.length, 'request', 'requests'))] });
    blocks.push(...packed.blocks);
    if (packed.shown < input.pending.length) blocks.push(moreNote(packed.shown, input.pending.length));
  }
  blocks.push({ type: 'divider' }, header('Recent decisions'));
  if (input.recent.length === 0) {
    blocks.push({ type: 'section', text: mrkdwn('No decisions yet.') });
  } else {
    blocks.push(...recent.map((item) => recentBlock(item, input)));
    if (recent.length < input.recent.length) blocks.push(moreNote(recent.length, input.recent.length));
  }
  if (input.grants === undefined) return { type: 'home', blocks };
  blocks.push({ type: 'divider' }, header('Your standing grants'));
  if (grants.length === 0) blocks.push({ type: 'section', text: mrkdwn('You have no standing grants.') });
  else blocks.push(...grants.map((item) => grantLine(item, input)));
  if (grants.length < input.grants.length) blocks.push(moreNote(grants.length, input.grants.length));
  return { type: 'home', blocks };
}
