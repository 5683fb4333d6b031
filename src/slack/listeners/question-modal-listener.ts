import type { App } from '@slack/bolt';
import { checkAnswer } from '../../agent/person-question.js';
import { type ClickDeps, handleApprovalClick } from '../approvals/handle-approval-click.js';
import { presentQuestion } from '../approvals/present-approval.js';
import {
  QUESTION_CALLBACK_ID,
  QUESTION_FIELD_ACTION_ID,
  questionFields,
  readQuestionAnswer,
} from '../blocks/index.js';
import { clickOf, readDecisionForm, refreshHomeAfterDecision } from './decision-form.js';

export interface QuestionModalDeps extends Omit<ClickDeps, 'respond'> {
  /** Rebuilds the App Home of someone who answered from it. */
  readonly refreshHome: (userId: string) => Promise<void>;
}

/**
 * Submissions of a question's form. What can be fixed in the form (a value the server's schema refuses)
 * is answered beside the input with the form left open, and changes nothing; anything else is
 * acknowledged and decided as the answer (or, for a link, as done), with every check of a click made
 * again: only the requester's answer counts, and only once (invariant 7).
 */
export function registerQuestionModalListener(app: App, deps: QuestionModalDeps): void {
  app.view(QUESTION_CALLBACK_ID, async ({ ack, body }) => {
    const submission = readDecisionForm(body, deps.logger, 'a question form');
    if (!submission) {
      await ack();
      return;
    }
    const click = clickOf(submission, 'allow');
    const approval = await deps.runtime.store.approvals.get(click.requestId);
    const view = approval ? presentQuestion(approval) : undefined;
    const question = view?.question;
    const fields = question?.kind === 'form' ? questionFields(question) : undefined;
    if (!approval || !question || approval.decision !== null || question.kind === 'link' || !fields) {
      // A link is done when they say so; anything else decided, gone or not a question is refused as
      // a click would be, and the clicker told why.
      await ack();
      await handleApprovalClick(deps, click);
      await refreshHomeAfterDecision(deps, submission);
      return;
    }
    const read = readQuestionAnswer(fields, (blockId) => submission.input(blockId, QUESTION_FIELD_ACTION_ID));
    if (read.type === 'errors') {
      await ack({ response_action: 'errors', errors: read.errors });
      return;
    }
    const check = checkAnswer(question, read.values);
    if (check.type === 'invalid') {
      const errors: Record<string, string> = {};
      for (const [name, problem] of check.problems) {
        const field = fields.find((candidate) => candidate.name === name) ?? fields[0];
        if (field && !errors[field.blockId]) errors[field.blockId] = problem.slice(0, 2_000);
      }
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack();
    await handleApprovalClick(deps, { ...click, edit: { arguments: check.content } });
    await refreshHomeAfterDecision(deps, submission);
  });
}
