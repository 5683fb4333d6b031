import type { KnownBlock } from '@slack/types';
import { stopTurnActions } from './blocks/stop-button.js';
import type { StreamChunk } from './slack-port.js';
import { markdownToMrkdwn } from './text/index.js';

export type TaskStatus = Extract<StreamChunk, { type: 'task_update' }>['status'];

/** A tool call as its live message shows it. */
export interface LiveTurnTask {
  readonly title: string;
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
