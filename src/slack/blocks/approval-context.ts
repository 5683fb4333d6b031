import type { ActionsBlock, ContextBlock, SectionBlock } from '@slack/types';
import type { AskedBecause } from '../../approvals/asked-because.js';
import { inlineCodeSafe } from '../text/escape-mrkdwn.js';
import { escapeAndTruncate } from '../text/truncate-text.js';
import { type ApprovalChoice, buildApprovalActions } from './approval-actions.js';
import { mentionList, mrkdwn, shownLine, toolCode } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';

const CODE_MAX = 300;
const CHANGES_MAX = 300;

/** Text from a rule, a path or a configured command, as inline code on one line. */
function code(text: string, max = CODE_MAX): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(shownLine(text)), max)}\``;
}

function whyLine(view: ApprovalView, asked: AskedBecause): string {
  switch (asked.type) {
    case 'rule': {
      const matches = Object.entries(asked.match).map(([name, pattern]) => `${name} ${code(pattern, 100)}`);
      const on = matches.length === 0 ? '' : ` where ${matches.join(' and ')}`;
      return `*Needs approval because* the policy rule for ${code(asked.tool, 100)}${on} asks for it.`;
    }
    case 'tool-default':
      return `*Needs approval because* ${toolCode(view.toolName)} asks by default and no policy rule or grant allows this call.`;
  }
}

function whereLines(view: ApprovalView): string[] {
  const effects = view.effects;
  if (!effects) return [];
  const lines: string[] = [];
  if (effects.deploy) {
    const { service, ref } = effects.deploy;
    const at = ref === undefined ? 'the service’s default ref' : `ref ${code(ref, 200)}`;
    lines.push(`*Deploys* ${code(service, 100)} at ${at}`);
  }
  if (effects.command !== undefined) lines.push(`*Command that runs:* ${code(effects.command)}`);
  const place = [
    effects.workdir === undefined ? '' : `in ${code(effects.workdir)}`,
    effects.host === undefined ? '' : `on host ${code(effects.host, 100)}`,
  ].filter((part) => part !== '');
  if (place.length > 0) lines.push(`*Runs* ${place.join(' ')}`);
  if (effects.changes !== undefined) {
    lines.push(`*May change:* ${escapeAndTruncate(shownLine(effects.changes), CHANGES_MAX)}`);
  }
  return lines;
}

/**
 * What an approver needs besides the arguments: why the call waits for a person (the rule or the
 * default that asked), where it runs, the command a deploy will run, and what it may change. Undefined
 * when none of it is known.
 */
export function decisionContext(view: ApprovalView): SectionBlock | undefined {
  const lines = [...(view.askedBecause ? [whyLine(view, view.askedBecause)] : []), ...whereLines(view)];
  if (lines.length === 0) return undefined;
  return { type: 'section', text: mrkdwn(lines.join('\n')) };
}

/**
 * The buttons as this view's reader may use them. A card many people see (`viewerMay` unset) offers
 * them to all, and a click is checked; a view made for one person shows only what that person may
 * press: Deny alone for their own request, and for someone who cannot decide, the state in words.
 */
export function viewerActions(view: ApprovalView, choice: ApprovalChoice): ActionsBlock | ContextBlock {
  switch (view.viewerMay) {
    case undefined:
    case 'decide':
      return buildApprovalActions(view, choice);
    case 'withdraw':
      return buildApprovalActions(view, 'deny-only');
    case 'watch': {
      const approvers = mentionList(view);
      const who = approvers === '' ? 'an approver' : approvers;
      return {
        type: 'context',
        elements: [mrkdwn(`⏳ Waiting for ${who} to decide. You cannot decide this request.`)],
      };
    }
  }
}
