import type { App } from '@slack/bolt';
import {
  type ApproverDirectory,
  bindingMismatch,
  recordRefusal,
  refusalFor,
} from '../../approvals/decide-approval.js';
import type { Redact } from '../../secrets/index.js';
import { editFields, readEditedArguments } from '../approvals/edit-fields.js';
import { type ClickDeps, handleApprovalClick } from '../approvals/handle-approval-click.js';
import { EDIT_CALLBACK_ID } from '../blocks/index.js';
import { clickOf, readDecisionForm, refreshHomeAfterDecision } from './decision-form.js';

export interface EditModalDeps extends Omit<ClickDeps, 'respond'> {
  readonly directory: ApproverDirectory;
  readonly redact: Redact;
  /** Rebuilds the App Home of someone who decided from it. */
  readonly refreshHome: (userId: string) => Promise<void>;
}

/**
 * Submissions of the edit form. What can be fixed in the form (JSON that does not parse, arguments the
 * tool refuses, a call a deny rule blocks) is answered beside the inputs with the form left open, and
 * changes nothing; anything else is acknowledged and decided as an Allow with the edited arguments, with
 * every check of a click made again.
 */
export function registerEditModalListener(app: App, deps: EditModalDeps): void {
  app.view(EDIT_CALLBACK_ID, async ({ ack, body }) => {
    const submission = readDecisionForm(body, deps.logger, 'an edit form');
    if (!submission) {
      await ack();
      return;
    }
    const click = clickOf(submission, 'allow');
    const decide = async (edited: Record<string, unknown>) => {
      await ack();
      await handleApprovalClick(deps, { ...click, edit: { arguments: edited } });
      await refreshHomeAfterDecision(deps, submission);
    };
    const store = deps.runtime.store;
    const approval = await store.approvals.get(click.requestId);
    const original = recordOf(approval?.arguments);
    const fields = approval ? editFields(approval.arguments, deps.redact) : undefined;
    // A request decided, edited by someone else, or not theirs to decide: the click's own checks say so.
    const settled =
      !approval ||
      !fields ||
      approval.decision !== null ||
      (await bindingMismatch({ store, cards: deps.runtime.cards }, approval, {
        ...click,
        installationEnterpriseId: deps.installationEnterpriseId,
      })) !== undefined ||
      (await refusalFor(
        { policy: deps.runtime.policy, directory: deps.directory },
        approval,
        click.userId,
        'allow',
      )) !== undefined;
    if (settled) {
      await decide(original);
      return;
    }
    const read = readEditedArguments(fields, original, submission);
    if (read.type === 'errors') {
      await ack({ response_action: 'errors', errors: read.errors });
      return;
    }
    const check = await deps.runtime.checkEdit(approval, read.arguments);
    if (check.type === 'refused') {
      // The form stays open with the reason beside the argument that was changed; nothing is written
      // but the refusal's audit row.
      await recordRefusal(
        { store, logger: deps.logger },
        { ...click, action: 'edit' },
        'edit-refused',
        approval,
        {
          problem: check.reason,
        },
      );
      const changed = fields.find(
        (field) => JSON.stringify(original[field.name]) !== JSON.stringify(read.arguments[field.name]),
      );
      const where = changed ?? fields.find((field) => field.kind !== 'kept');
      await ack({
        response_action: 'errors',
        errors: {
          [where?.blockId ?? 'holdfast.edit.0']: `${check.problem} Nothing changed.`.slice(0, 2_000),
        },
      });
      return;
    }
    await decide(read.arguments);
  });
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
