import { describe, expect, it } from 'vitest';
import {
  buildAnsweredQuestionCard,
  buildQuestionCard,
  buildQuestionModal,
  type QuestionView,
} from './question-card.js';
import { questionFields } from './question-fields.js';

const formView: QuestionView = {
  requestId: 'apr_question_1',
  argsFingerprint: 'abcdef012345',
  toolName: 'tickets__deploy',
  requestedBy: 'U0ALICE',
  expiresAt: Date.UTC(2026, 11, 6, 9, 0, 0),
  question: {
    kind: 'form',
    askedBy: 'tickets',
    message: 'Where should *web* go? <!channel>',
    schema: { type: 'object', properties: { note: { type: 'string', title: 'Note' } }, required: ['note'] },
  },
};

const linkView: QuestionView = {
  ...formView,
  question: {
    kind: 'link',
    askedBy: 'tickets',
    message: 'Sign in',
    url: 'https://tickets.example.test/in?s=1',
  },
};

function texts(blocks: unknown): string {
  return JSON.stringify(blocks);
}

describe('buildQuestionCard', () => {
  it("quotes the server's words with mentions defused, names who asks for whom, and offers Answer… and Decline", () => {
    const card = buildQuestionCard(formView);
    expect(card.blocks[1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*tickets*, running `tickets__deploy` for <@U0ALICE>, asks:\n>Where should *web* go? &lt;!channel&gt;',
      },
    });
    const actions = card.blocks.find((block) => block.type === 'actions');
    expect(actions).toMatchObject({
      block_id: 'holdfast.approval:apr_question_1:abcdef012345',
      elements: [
        {
          action_id: 'holdfast.approval.edit',
          text: { text: 'Answer…' },
          style: 'primary',
          value: 'apr_question_1',
        },
        { action_id: 'holdfast.approval.deny', text: { text: 'Decline' }, value: 'apr_question_1' },
      ],
    });
    expect(card.text.startsWith('<@U0ALICE>: tickets asks: Where should')).toBe(true);
    expect(card.text).not.toContain('<!channel>');
  });

  it('never puts a link on the card', () => {
    const card = buildQuestionCard(linkView);
    expect(texts(card)).not.toContain('tickets.example.test');
    expect(texts(card)).toContain('Open link…');
  });
});

describe('buildAnsweredQuestionCard', () => {
  it('says who answered, and offers nothing more to click', () => {
    const card = buildAnsweredQuestionCard(formView, {
      type: 'allowed',
      by: 'U0ALICE',
      at: 0,
      always: false,
    });
    expect(texts(card.blocks)).toContain('Answered by <@U0ALICE>');
    expect(card.blocks.some((block) => block.type === 'actions')).toBe(false);
    expect(texts(buildAnsweredQuestionCard(formView, { type: 'expired', at: 0 }).blocks)).toContain(
      'Nobody answered',
    );
  });
});

describe('buildQuestionModal', () => {
  it('asks each field of a form, required where the server requires it', () => {
    const modal = buildQuestionModal(formView, questionFields(formView.question as never) ?? [], '{"m":1}');
    expect(modal).toMatchObject({
      callback_id: 'holdfast.question.answer',
      private_metadata: '{"m":1}',
      submit: { text: 'Send' },
    });
    expect(modal.blocks.filter((block) => block.type === 'input')).toEqual([
      {
        type: 'input',
        block_id: 'holdfast.question.0',
        optional: false,
        label: { type: 'plain_text', text: 'Note', emoji: true },
        element: { type: 'plain_text_input', action_id: 'value', multiline: true, max_length: 3000 },
      },
    ]);
  });

  it('shows a link, and says where it goes, only in the form', () => {
    const modal = buildQuestionModal(linkView, [], '{}');
    expect(texts(modal.blocks)).toContain('<https://tickets.example.test/in?s=1|this link>');
    expect(texts(modal.blocks)).toContain('The link goes to tickets.example.test.');
    expect(modal.submit).toMatchObject({ text: 'Done' });
  });
});
