import { describe, expect, it } from 'vitest';
import { redactKnownPatterns } from '../../secrets/index.js';
import { editFields, readEditedArguments } from './edit-fields.js';

const secret = `xoxb-${'1234567890'}-${'abcdefghijABCDEFGHIJ1234'}`;

function answers(values: Record<string, string>) {
  return { text: (blockId: string) => values[blockId] };
}

describe('editFields', () => {
  it('gives text as it is, other values as JSON, and keeps a value holding a secret', () => {
    const fields = editFields(
      { command: 'df -h', timeoutSeconds: 30, headers: { authorization: `Bearer ${secret}` } },
      redactKnownPatterns,
    );
    expect(fields?.map((field) => [field.name, field.blockId, field.kind])).toEqual([
      ['command', 'holdfast.edit.0', 'text'],
      ['timeoutSeconds', 'holdfast.edit.1', 'json'],
      ['headers', 'holdfast.edit.2', 'kept'],
    ]);
    expect(fields?.[1]?.initial).toBe('30');
    expect(JSON.stringify(fields)).not.toContain(secret);
  });

  it('offers no form for arguments that are not an object, are empty, or do not fit an input', () => {
    const same = (text: string) => text;
    expect(editFields('df -h', same)).toBeUndefined();
    expect(editFields({}, same)).toBeUndefined();
    expect(editFields({ body: 'x'.repeat(3001) }, same)).toBeUndefined();
  });
});

describe('readEditedArguments', () => {
  const original = { command: 'df -h', timeoutSeconds: 30, token: secret };
  const fields = editFields(original, redactKnownPatterns) ?? [];

  it('reads text as text, JSON as values, and puts a kept value back as it was', () => {
    expect(
      readEditedArguments(fields, original, answers({ 'holdfast.edit.0': 'df -i', 'holdfast.edit.1': '5' })),
    ).toEqual({ type: 'arguments', arguments: { command: 'df -i', timeoutSeconds: 5, token: secret } });
  });

  it('sends JSON that does not parse back to the form, beside its input', () => {
    expect(
      readEditedArguments(fields, original, answers({ 'holdfast.edit.0': 'df', 'holdfast.edit.1': 'five' })),
    ).toEqual({
      type: 'errors',
      errors: { 'holdfast.edit.1': expect.stringContaining('Not valid JSON') },
    });
  });
});
