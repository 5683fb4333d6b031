import { describe, expect, it } from 'vitest';
import { describeEdit, editNote } from './edited-call.js';

describe('describeEdit', () => {
  it('names each argument that changed, with its old and new value', () => {
    expect(describeEdit('{"command":"df -h","cwd":"logs"}', '{"command":"df -h /","cwd":"logs"}')).toBe(
      '`command` from "df -h" to "df -h /"',
    );
  });

  it('says which arguments were added and removed', () => {
    expect(describeEdit('{"service":"api","ref":"main"}', '{"service":"api","dry_run":true}')).toBe(
      'removed `ref`; added `dry_run` = true',
    );
  });

  it('falls back to both texts when either is not an object', () => {
    expect(describeEdit('not json', '{"a":1}')).toBe('the arguments from "not json" to "{\\"a\\":1}"');
  });
});

describe('editNote', () => {
  it('reads as a sentence naming the editor, with the instruction marked as for the model', () => {
    const note = editNote(
      { id: 'call_1', name: 'run_shell', arguments: '{"command":"rm -rf /tmp/x"}' },
      {
        by: 'U0BOB',
        at: 0,
        argumentsText: '{"command":"ls /tmp/x"}',
        proposedArguments: { command: 'rm -rf /tmp/x' },
        proposedArgsHash: 'h',
        count: 1,
      },
      'bob',
    );
    const [forPeople, forModel] = note.split('\n');
    expect(forPeople).toBe(
      'Edited before approval by bob: changed `command` from "rm -rf /tmp/x" to "ls /tmp/x".',
    );
    expect(forModel).toMatch(/^\[for the assistant only\] /);
    expect(note).not.toContain('U0BOB');
  });
});
