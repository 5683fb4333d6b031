import { describe, expect, it } from 'vitest';
import { editedDetails } from '../rules/edit-arguments.js';
import { StoredRowInvalidError } from '../store-errors.js';
import { approvalDetailsJson, approvalDetailsOf } from './approval-details.js';

const row = (details_json: string) => ({ request_id: 'req-1', details_json });

describe('the request details document', () => {
  it('stores a new request with its arguments and no edit', () => {
    const json = approvalDetailsJson({ arguments: { path: '/tmp' }, edit: null });
    expect(JSON.parse(json)).toEqual({ arguments: { path: '/tmp' } });
    expect(approvalDetailsOf(row(json))).toEqual({ arguments: { path: '/tmp' }, edit: null });
  });

  it('writes only what its schema knows, whatever else the record carries', () => {
    const approval = { arguments: { n: 1 }, edit: null, summary: 'run it', requestId: 'req-1' };
    expect(JSON.parse(approvalDetailsJson(approval))).toEqual({ arguments: { n: 1 } });
  });

  it('keeps the proposal and the edited arguments through two edits', () => {
    const asked = { arguments: { n: 1 }, argsHash: 'h1', edit: null };
    const first = editedDetails(
      asked,
      { fromArgsHash: 'h1', arguments: { n: 2 }, argumentsText: '{"n":2}', argsHash: 'h2', summary: 's' },
      'U1',
      10,
    );
    const afterFirst = approvalDetailsOf(row(first.json));
    const second = editedDetails(
      { ...afterFirst, argsHash: 'h2' },
      { fromArgsHash: 'h2', arguments: { n: 3 }, argumentsText: '{"n":3}', argsHash: 'h3', summary: 's' },
      'U2',
      20,
    );
    expect(approvalDetailsOf(row(second.json))).toEqual({
      arguments: { n: 3 },
      edit: {
        proposedArguments: { n: 1 },
        proposedArgsHash: 'h1',
        argumentsText: '{"n":3}',
        by: 'U2',
        at: 20,
        count: 2,
      },
    });
  });

  it('refuses a stored document that is not one, naming the row', () => {
    expect(() => approvalDetailsOf(row('{"edit": {"count": 0}}'))).toThrow(StoredRowInvalidError);
    expect(() => approvalDetailsOf(row('not json'))).toThrow(/req-1/);
  });
});
