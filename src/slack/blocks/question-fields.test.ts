import { describe, expect, it } from 'vitest';
import type { PersonQuestion } from '../../agent/person-question.js';
import { questionFields, readQuestionAnswer } from './question-fields.js';

function form(properties: Record<string, Record<string, unknown>>, required?: string[]) {
  return {
    kind: 'form',
    askedBy: 'tickets',
    message: 'Where?',
    schema: { type: 'object', properties, ...(required ? { required } : {}) },
  } satisfies PersonQuestion;
}

describe('questionFields', () => {
  it('gives each property of the flat schema the input that fits it, in order', () => {
    const fields = questionFields(
      form(
        {
          environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
          region: {
            type: 'string',
            oneOf: [
              { const: 'eu', title: 'Europe' },
              { const: 'us', title: 'Americas' },
            ],
          },
          replicas: { type: 'integer', minimum: 1, maximum: 9, default: 2 },
          confirm: { type: 'boolean', title: 'Really deploy', default: false },
          note: { type: 'string', description: 'Why now', maxLength: 80 },
          teams: { type: 'array', items: { type: 'string', enum: ['web', 'db'] }, default: ['web'] },
        },
        ['environment', 'confirm'],
      ),
    );
    expect(fields?.map((field) => [field.name, field.kind, field.label, field.required])).toEqual([
      ['environment', 'choice', 'Environment', true],
      ['region', 'choice', 'region', false],
      ['replicas', 'number', 'replicas', false],
      ['confirm', 'yes-no', 'Really deploy', true],
      ['note', 'text', 'note', false],
      ['teams', 'choices', 'teams', false],
    ]);
    expect(fields?.[1]).toMatchObject({
      choices: [
        { value: 'eu', label: 'Europe' },
        { value: 'us', label: 'Americas' },
      ],
    });
    expect(fields?.[2]).toMatchObject({ integer: true, initial: 2, minimum: 1, maximum: 9 });
    expect(fields?.[4]).toMatchObject({ hint: 'Why now', maxLength: 80, multiline: false });
    expect(fields?.[5]).toMatchObject({ initial: ['web'] });
  });

  it('cannot ask a property of a kind the protocol does not allow, or more options than a select holds', () => {
    expect(questionFields(form({ nested: { type: 'object' } }))).toBeUndefined();
    const many = Array.from({ length: 101 }, (_, index) => `option-${index}`);
    expect(questionFields(form({ pick: { type: 'string', enum: many } }))).toBeUndefined();
  });
});

describe('readQuestionAnswer', () => {
  const fields =
    questionFields(
      form({
        environment: { type: 'string', enum: ['staging', 'production'] },
        replicas: { type: 'integer' },
        confirm: { type: 'boolean' },
        note: { type: 'string' },
        teams: { type: 'array', items: { type: 'string', enum: ['web', 'db'] } },
      }),
    ) ?? [];

  it('types each value as the schema asks, leaving out what was left empty', () => {
    const inputs: Record<string, object> = {
      'holdfast.question.0': { selected_option: { value: 'staging' } },
      'holdfast.question.1': { value: '3' },
      'holdfast.question.2': { selected_option: { value: 'no' } },
      'holdfast.question.3': { value: null },
      'holdfast.question.4': { selected_options: [{ value: 'db' }] },
    };
    expect(readQuestionAnswer(fields, (blockId) => inputs[blockId])).toEqual({
      type: 'values',
      values: { environment: 'staging', replicas: 3, confirm: false, teams: ['db'] },
    });
  });

  it('says beside the input when a number is not one', () => {
    expect(
      readQuestionAnswer(fields, (blockId) =>
        blockId === 'holdfast.question.1' ? { value: '2.5' } : undefined,
      ),
    ).toEqual({
      type: 'errors',
      errors: { 'holdfast.question.1': 'Write a whole number.' },
    });
  });
});
