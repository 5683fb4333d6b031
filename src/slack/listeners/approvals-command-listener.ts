import type { App } from '@slack/bolt';
import { type Redact, redactStrings } from '../../secrets/index.js';
import { type InboxDeps, pendingForViewer } from '../approvals/approval-inbox-query.js';
import { grantsInChannel } from '../approvals/manage-grants.js';
import { stoppableForViewer } from '../approvals/stoppable-turns.js';
import { BLOCK_KIT_LIMITS } from '../blocks/block-kit-limits.js';
import {
  buildApprovalInbox,
  buildApprovalsHelp,
  buildGrantList,
  buildStoppableList,
} from '../blocks/index.js';
import { slashCommandSchema } from '../payloads.js';

/**
 * `/approvals` (this channel), `/approvals all` (everything you may decide), `/approvals grants` (the
 * standing grants of this channel and its threads, with Revoke) and `/approvals help`, as an ephemeral reply. Under the
 * requests, the ones the viewer may stop (running or waiting, theirs or as an approver), with Stop.
 */
export function registerApprovalsCommand(
  app: App,
  deps: InboxDeps & { logger: import('pino').Logger; redact: Redact },
): void {
  app.command('/approvals', async ({ ack, command, respond }) => {
    await ack();
    const parsed = slashCommandSchema.safeParse(command);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed /approvals command');
      return;
    }
    const asked = parsed.data.text.trim().toLowerCase();
    if (asked === 'help') {
      await respond({ response_type: 'ephemeral', ...buildApprovalsHelp() });
      return;
    }
    if (asked === 'grants') {
      const list = buildGrantList(await grantsInChannel(deps, parsed.data.channel_id));
      await respond(
        redactStrings({ response_type: 'ephemeral', text: list.text, blocks: list.blocks }, (text) =>
          deps.redact(text, { compact: true }),
        ),
      );
      return;
    }
    const all = asked === 'all';
    const query = { viewer: parsed.data.user_id, channelId: all ? undefined : parsed.data.channel_id };
    const { views, hidden } = await pendingForViewer(deps, query);
    const inbox = buildApprovalInbox(views, {
      scope: all ? 'all' : 'channel',
      viewer: parsed.data.user_id,
      truncatedCount: hidden,
    });
    const stoppable = buildStoppableList(await stoppableForViewer(deps, query), {
      viewer: parsed.data.user_id,
      maxBlocks: BLOCK_KIT_LIMITS.messageBlocks - inbox.blocks.length,
    });
    const blocks = [...inbox.blocks, ...stoppable];
    // A response_url reply does not pass through the Web API client, so it is redacted here, and
    // compactly: the inbox is already cut to Block Kit's limits.
    await respond(
      redactStrings({ response_type: 'ephemeral', text: inbox.text, blocks }, (text) =>
        deps.redact(text, { compact: true }),
      ),
    );
  });
}
