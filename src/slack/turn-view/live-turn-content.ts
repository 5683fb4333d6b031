import type { KnownBlock } from '@slack/types';
import type { ToolOutcome } from '../../agent/tool-outcome.js';
import type { ProgressCall } from '../../agent/turn-progress.js';
import { stopTurnActions } from '../blocks/stop-button.js';
import { markdownToMrkdwn } from '../text/index.js';
import type { StreamChunk } from '../web-api/slack-port.js';

export type TaskStatus = Extract<StreamChunk, { type: 'task_update' }>['status'];

/** A tool call as its live message shows it. */
export interface LiveTurnTask {
  title: string;
  status: TaskStatus;
  details: string | undefined;
  startedAt: number | undefined;
}

/** A fallback message shows the end of a long answer; the delivered answer replaces it whole. */
const fallbackLimit = 2_900;

/** The fallback message's text: the reply so far in mrkdwn, then one line per task. */
export function fallbackText(sentText: string, tasks: Iterable<LiveTurnTask>): string {
  const text = markdownToMrkdwn(sentText, { allowedPings: new Set() });
  const lines = [...tasks].map(
    (task) => `${taskMark[task.status]} \`${task.title}\`${task.details ? ` (${task.details})` : ''}`,
  );
  const whole = [text, lines.join('\n')].filter((part) => part !== '').join('\n\n') || '…';
  return whole.length > fallbackLimit ? `…${whole.slice(whole.length - fallbackLimit)}` : whole;
}

/** The fallback message: its text, with the Stop button under it. */
export function fallbackMessage(text: string, turnId: string): { text: string; blocks: KnownBlock[] } {
  return {
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, stopTurnActions(turnId)],
  };
}

const taskMark: Record<TaskStatus, string> = {
  pending: ':white_circle:',
  in_progress: ':hourglass_flowing_sand:',
  complete: ':white_check_mark:',
  error: ':x:',
};

export function taskChunk(id: string, task: LiveTurnTask): StreamChunk {
  return {
    type: 'task_update',
    id,
    title: task.title,
    status: task.status,
    ...(task.details ? { details: task.details } : {}),
  };
}

/** `<!here>`, `<@U…>`, `<!subteam^…>` and `<#C…>` in a preview must not ping anyone: broken with a zero-width space. */
export function defuseMentions(text: string): string {
  return text.replace(/<([!@#])/g, '<\u200b$1');
}

/** A task's title is kept to this many characters: it names the call, the answer tells the rest. */
const titleLimit = 60;

/** The argument that says what a call does, in the order they are looked for. */
const subjectKeys = ['command', 'url', 'path', 'query', 'sql', 'service', 'input'];

/** What a task is called: its tool and what it runs (`run_shell: df -h`), shortened to one line. */
export function taskTitle(call: Pick<ProgressCall, 'name' | 'arguments'>): string {
  const subject = subjectOf(call.arguments);
  if (subject === undefined) return call.name;
  return clipped(`${call.name}: ${subject}`, titleLimit);
}

function clipped(text: string, limit: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

function subjectOf(argumentsText: string | undefined): string | undefined {
  if (argumentsText === undefined) return undefined;
  let args: unknown;
  try {
    args = JSON.parse(argumentsText);
  } catch {
    return undefined;
  }
  if (typeof args !== 'object' || args === null) return undefined;
  const record = args as Record<string, unknown>;
  const key = subjectKeys.find((name) => typeof record[name] === 'string' && record[name] !== '');
  const value = key ? String(record[key]) : Object.values(record).find((entry) => typeof entry === 'string');
  if (typeof value !== 'string' || value === '') return undefined;
  // An HTTP call reads as its method and URL; a deploy as its service and ref.
  if (key === 'url' && typeof record.method === 'string') return `${record.method} ${value}`;
  if (key === 'service' && typeof record.ref === 'string') return `${value} @ ${record.ref}`;
  return value;
}

/** What a finished task's line adds after its title: how it ended when that was not well, and how long it took. */
export function taskDetails(outcome: ToolOutcome, took: string | undefined): string | undefined {
  const ending = endingWords(outcome);
  return [ending, took].filter((part) => part !== undefined).join(', ') || undefined;
}

function endingWords(outcome: ToolOutcome): string | undefined {
  switch (outcome.type) {
    case 'succeeded':
      return undefined;
    case 'failed':
      if (outcome.exitCode !== undefined) return `failed: exit code ${outcome.exitCode}`;
      return outcome.error ? `failed: ${clipped(outcome.error, 80)}` : 'failed';
    case 'stopped':
      return 'stopped';
    case 'interrupted':
      return 'interrupted: outcome unknown';
    case 'denied':
      return 'denied';
    case 'expired':
      return 'expired: nobody decided';
    case 'refused':
      return 'not run';
  }
}
