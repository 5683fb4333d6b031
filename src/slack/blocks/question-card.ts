import type { ActionsBlock, Button, InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { PersonQuestion } from '../../agent/person-question.js';
import { escapeMrkdwn, mentionUser, slackUrl } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, truncateText } from '../text/truncate-text.js';
import { APPROVAL_ACTION_IDS, approvalBlockId } from './approval-actions.js';
import { header, mrkdwn, shownLine, toolCode } from './approval-card-parts.js';
import type { ApprovalOutcome } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import { escapeInvisible } from './escape-invisible.js';
import { QUESTION_FIELD_ACTION_ID, type QuestionField } from './question-fields.js';
import type { SlackMessage } from './slack-message.js';

export const QUESTION_CALLBACK_ID = 'holdfast.question.answer';

/** What a question's card and form show: built from the stored request by the caller. */
export interface QuestionView {
  readonly requestId: string;
  /** See `ApprovalView.argsFingerprint`: the buttons' block id carries it. */
  readonly argsFingerprint: string;
  readonly toolName: string;
  readonly requestedBy: string;
  readonly question: PersonQuestion;
  readonly expiresAt: number;
}

const MESSAGE_MAX = 2000;

/** The server's words, quoted: untrusted text, so escaped, with invisible characters shown. */
function quoted(message: string): string {
  const text = escapeAndTruncate(escapeInvisible(message.trim()), MESSAGE_MAX);
  return text
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

function who(view: QuestionView): string {
  return `*${escapeAndTruncate(shownLine(view.question.askedBy), 80)}*, running ${toolCode(view.toolName)} for ${mentionUser(view.requestedBy)}, asks:`;
}

function button(view: QuestionView, actionId: string, label: string, style?: Button['style']): Button {
  return {
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text: truncateText(label, BLOCK_KIT_LIMITS.buttonText), emoji: true },
    ...(style ? { style } : {}),
    value: view.requestId,
  };
}

/**
 * The card for a question a running call asks its requester: who asks and what, and two buttons. The
 * answer is given in a form only the requester can open (Answer…), so nothing typed in it reaches the
 * thread; a link is shown to the requester alone, in that form, never on the card. The call waits, and
 * carries on once answered or declined.
 */
export function buildQuestionCard(view: QuestionView): SlackMessage {
  const { question } = view;
  const asks =
    question.kind === 'form'
      ? `Only ${mentionUser(view.requestedBy)} can answer, with *Answer…*.`
      : `It needs ${mentionUser(view.requestedBy)} to open a link, shown to them alone with *Open link…*.`;
  const actions: ActionsBlock = {
    type: 'actions',
    block_id: approvalBlockId(view.requestId, view.argsFingerprint),
    elements: [
      button(view, APPROVAL_ACTION_IDS.edit, question.kind === 'form' ? 'Answer…' : 'Open link…', 'primary'),
      button(view, APPROVAL_ACTION_IDS.deny, 'Decline'),
    ],
  };
  const blocks: KnownBlock[] = [
    header('A question for you'),
    { type: 'section', text: mrkdwn(`${who(view)}\n${quoted(question.message)}`) },
    {
      type: 'context',
      elements: [mrkdwn(`${asks} The call waits until then, or until ${formatSlackDate(view.expiresAt)}.`)],
    },
    actions,
  ];
  const text = `${mentionUser(view.requestedBy)}: ${escapeMrkdwn(shownLine(question.askedBy))} asks: ${escapeMrkdwn(shownLine(question.message))}`;
  return { text: truncateText(text, BLOCK_KIT_LIMITS.messageText), blocks };
}

/** The card once answered, declined or left to expire: the question, what became of it, no buttons. */
export function buildAnsweredQuestionCard(view: QuestionView, outcome: ApprovalOutcome): SlackMessage {
  const at = formatSlackDate(outcome.at);
  const { title, line } =
    outcome.type === 'allowed'
      ? {
          title: 'Answered',
          line:
            view.question.kind === 'form'
              ? `✅ Answered by ${mentionUser(outcome.by)} at ${at}; the call goes on with the answer.`
              : `✅ ${mentionUser(outcome.by)} finished at the link at ${at}; the call goes on.`,
        }
      : outcome.type === 'denied'
        ? {
            title: 'Declined',
            line: `⛔ Declined by ${mentionUser(outcome.by)} at ${at}; the call is told so.`,
          }
        : { title: 'Not answered', line: `⌛ Nobody answered by ${at}; the call is told so.` };
  return {
    text: truncateText(
      `${title}: ${shownLine(view.question.askedBy)} asked ${shownLine(view.question.message)}`,
      BLOCK_KIT_LIMITS.messageText,
    ),
    blocks: [
      header(title),
      { type: 'section', text: mrkdwn(`${who(view)}\n${quoted(view.question.message)}`) },
      { type: 'section', text: mrkdwn(line) },
    ],
  };
}

function plain(text: string, max: number) {
  return { type: 'plain_text' as const, text: truncateText(text, max), emoji: true };
}

function option(value: string, label: string): PlainTextOption {
  return { text: plain(label, 75), value };
}

function inputOf(field: QuestionField): InputBlock {
  const base = {
    type: 'input' as const,
    block_id: field.blockId,
    // A yes/no or a set of options can be left as it is; anything else the server requires, Slack asks for.
    optional: !field.required || field.kind === 'choices',
    label: plain(field.label, 2000),
    ...(field.hint ? { hint: plain(field.hint, 2000) } : {}),
  };
  switch (field.kind) {
    case 'text':
      return {
        ...base,
        element: {
          type: 'plain_text_input',
          action_id: QUESTION_FIELD_ACTION_ID,
          multiline: field.multiline,
          ...(field.initial ? { initial_value: field.initial } : {}),
          ...(field.minLength ? { min_length: field.minLength } : {}),
          ...(field.maxLength ? { max_length: field.maxLength } : {}),
        },
      };
    case 'number':
      return {
        ...base,
        element: {
          type: 'number_input',
          action_id: QUESTION_FIELD_ACTION_ID,
          is_decimal_allowed: !field.integer,
          ...(field.initial === undefined ? {} : { initial_value: String(field.initial) }),
          ...(field.minimum === undefined ? {} : { min_value: String(field.minimum) }),
          ...(field.maximum === undefined ? {} : { max_value: String(field.maximum) }),
        },
      };
    case 'yes-no': {
      const yes = option('yes', 'Yes');
      const no = option('no', 'No');
      return {
        ...base,
        element: {
          type: 'radio_buttons',
          action_id: QUESTION_FIELD_ACTION_ID,
          options: [yes, no],
          ...(field.initial === undefined ? {} : { initial_option: field.initial ? yes : no }),
        },
      };
    }
    case 'choice': {
      const options = field.choices.map((choice) => option(choice.value, choice.label));
      const initial = options.find((candidate) => candidate.value === field.initial);
      return {
        ...base,
        element: {
          type: 'static_select',
          action_id: QUESTION_FIELD_ACTION_ID,
          options,
          ...(initial ? { initial_option: initial } : {}),
        },
      };
    }
    case 'choices': {
      const options = field.choices.map((choice) => option(choice.value, choice.label));
      const initial = options.filter((candidate) => field.initial.includes(candidate.value ?? ''));
      return {
        ...base,
        element: {
          type: 'multi_static_select',
          action_id: QUESTION_FIELD_ACTION_ID,
          options,
          ...(initial.length > 0 ? { initial_options: initial } : {}),
        },
      };
    }
  }
}

/**
 * The requester's form: the question and one input per field the server asked for, or, for a link, the
 * link itself (this modal is the one place it is shown) and a button to say they finished there.
 * Submitting answers the question; closing the form changes nothing.
 */
export function buildQuestionModal(
  view: QuestionView,
  fields: readonly QuestionField[],
  metadata: string,
): ModalView {
  const { question } = view;
  const intro: KnownBlock = { type: 'section', text: mrkdwn(`${who(view)}\n${quoted(question.message)}`) };
  const blocks: KnownBlock[] =
    question.kind === 'form'
      ? [
          intro,
          ...fields.map(inputOf),
          {
            type: 'context',
            elements: [
              mrkdwn('What you send goes to that server only; the thread sees that you answered, not what.'),
            ],
          },
        ]
      : [
          intro,
          {
            type: 'section',
            text: mrkdwn(
              `Open <${slackUrl(question.url)}|this link> and finish there, then come back and press *Done*.`,
            ),
          },
          {
            type: 'context',
            elements: [
              mrkdwn(`The link goes to ${escapeMrkdwn(safeHost(question.url))}. Only you can see it.`),
            ],
          },
        ];
  return {
    type: 'modal',
    callback_id: QUESTION_CALLBACK_ID,
    title: plain(question.kind === 'form' ? 'Answer the question' : 'Open the link', 24),
    submit: plain(question.kind === 'form' ? 'Send' : 'Done', 24),
    close: plain('Not now', 24),
    private_metadata: metadata,
    blocks,
  };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an address holdfast cannot read';
  }
}
