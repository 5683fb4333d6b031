import type { Logger } from 'pino';
import type { ApprovalEdit } from '../store/records.js';
import type { Store } from '../store/store.js';
import { isStoreFault } from '../store/store-errors.js';
import { capText } from './cap-text.js';
import type { ChatMessage, ToolCall } from './chat-model.js';
import { editNote } from './edited-call.js';
import { type NameOf, nameFor } from './person-name.js';
import { refOf, type ToolCallSite } from './tool-call-site.js';
import type { ToolOutcome } from './tool-outcome.js';

/** Any one tool result is kept to this many characters, in the transcript and for the model. */
export const toolResultLimit = 64_000;

/** A result that cannot be saved is retried this many times (a full disk, a lock held too long). */
const resultRetryDelaysMs = [50, 250, 1_000, 3_000, 5_000];

/**
 * Invariant 3: the result is persisted now, before the next sibling can suspend the turn; invariant 9: a
 * secret a tool printed never reaches the transcript, the model or the thread. The result exists only in
 * memory until this commits and the tool will not run again, so a storage fault (full disk, a lock held
 * too long) is worth waiting out for a few seconds before the turn gives up.
 */
export async function persistToolResult(
  deps: {
    readonly store: Store;
    readonly logger: Logger;
    readonly redact: (text: string) => string;
    readonly sleep?: (ms: number) => Promise<void>;
    /** Names the approver who edited a call in its note; without it the note says "an approver". */
    readonly nameOf?: NameOf;
  },
  site: ToolCallSite,
  result: { readonly content: string; readonly outcome: ToolOutcome },
  edit?: { readonly call: ToolCall; readonly edit: ApprovalEdit },
): Promise<ChatMessage | undefined> {
  const { toolCallId } = site;
  // The note comes after the result, whose first line says what happened.
  const editor = edit ? await nameFor(deps.nameOf, edit.edit.by, 'an approver') : '';
  const note = edit ? `\n\n${deps.redact(editNote(edit.call, edit.edit, editor))}` : '';
  const content = capText(deps.redact(result.content), toolResultLimit - note.length, 'the tool') + note;
  // Kept with the result: a reaction or a task shown after a restart reads how the call ended from here.
  const outcome = redactOutcome(result.outcome, deps.redact);
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt += 1) {
    try {
      const recorded = await deps.store.transcript.recordToolResult(
        site.fence,
        refOf(site),
        content,
        outcome,
      );
      return recorded ? { role: 'tool', toolCallId, content, outcome } : undefined;
    } catch (error) {
      const delay = resultRetryDelaysMs[attempt];
      if (!isStoreFault(error) || delay === undefined) throw error;
      deps.logger.warn({ err: error, toolCallId, attempt }, 'could not save a tool result; retrying');
      await sleep(delay);
    }
  }
}

/** An error's words may quote what a tool printed: they are redacted like the result (invariant 9). */
function redactOutcome(outcome: ToolOutcome, redact: (text: string) => string): ToolOutcome {
  return outcome.type === 'failed' && outcome.error !== undefined
    ? { ...outcome, error: redact(outcome.error) }
    : outcome;
}
