import type { KnownBlock } from '@slack/types';
import { redactKnownPatterns } from '../../secrets/index.js';
import { BLOCK_KIT_LIMITS } from '../blocks/block-kit-limits.js';
import type { SlackMessage } from '../blocks/slack-message.js';
import { markupSafeCut, truncateText } from './truncate-text.js';

export interface SplitOptions {
  /** Longest chunk, after fences are closed and reopened; defaults to a section block's 3,000. */
  readonly maxChars?: number;
}

const FENCE = '```';
// Room to close a fence at the end of a chunk ("\n```") and reopen it at the start of the next ("```\n").
const FENCE_RESERVE = (FENCE.length + 1) * 2;
const MIN_CHARS = FENCE_RESERVE + 8;

interface Cut {
  readonly end: number;
  readonly resume: number;
}

function fenceCount(text: string): number {
  return text.split(FENCE).length - 1;
}

function lastBlank(text: string, from: number): number {
  for (let i = Math.min(from, text.length - 1); i > 0; i -= 1) {
    const char = text[i];
    if (char === ' ' || char === '\t') return i;
  }
  return -1;
}

function cutAt(text: string, at: number): Cut {
  let resume = at;
  if (text[at] === '\n') while (text[resume] === '\n') resume += 1;
  else if (text[at] === ' ' || text[at] === '\t') resume += 1;
  return { end: at, resume };
}

function hardCut(text: string, budget: number): Cut {
  let at = markupSafeCut(text, budget);
  // Never split a run of backticks: half a fence is a different fence.
  while (at > 0 && text[at - 1] === '`' && text[at] === '`') at -= 1;
  if (at <= 0) at = budget;
  return { end: at, resume: at };
}

/** Prefers a paragraph break, then a line break, then a space, as long as the chunk stays half full. */
function findCut(text: string, budget: number): Cut {
  const candidates = [
    text.lastIndexOf('\n\n', budget),
    text.lastIndexOf('\n', budget),
    lastBlank(text, budget),
  ];
  const usable = candidates.filter((at) => at > 0 && markupSafeCut(text, at) === at);
  const preferred = usable.find((at) => at >= budget / 2) ?? Math.max(-1, ...usable);
  return preferred > 0 ? cutAt(text, preferred) : hardCut(text, budget);
}

/** When a cut leaves an opening fence as the chunk's last line, the fence moves to the next chunk. */
function keepFenceWithCode(text: string, cut: Cut, openBefore: boolean): Cut {
  const piece = text.slice(0, cut.end);
  const opensAfter = (fenceCount(piece) % 2 === 1) !== openBefore;
  if (!opensAfter) return cut;
  const fence = piece.lastIndexOf(FENCE);
  const lineStart = piece.lastIndexOf('\n', fence) + 1;
  const fenceEndsPiece = !piece.slice(fence).includes('\n');
  if (!fenceEndsPiece || lineStart === 0 || piece.slice(lineStart, fence).trim() !== '') return cut;
  return { end: lineStart, resume: lineStart };
}

/**
 * Splits mrkdwn into chunks that each fit one section block, on paragraph, then line, then word
 * boundaries. A chunk that ends inside a ``` fence closes it and the next chunk reopens it, so code keeps
 * rendering as code; entities and Slack tokens are never cut in half.
 */
export function splitForSlack(mrkdwn: string, options: SplitOptions = {}): string[] {
  const maxChars = Math.max(options.maxChars ?? BLOCK_KIT_LIMITS.sectionText, MIN_CHARS);
  const budget = maxChars - FENCE_RESERVE;
  const chunks: string[] = [];
  let rest = mrkdwn.replace(/\r\n?/g, '\n');
  let inFence = false;
  while (rest.trim() !== '') {
    const cut = rest.length <= budget ? { end: rest.length, resume: rest.length } : findCut(rest, budget);
    const { end, resume } = keepFenceWithCode(rest, cut, inFence);
    const piece = rest.slice(0, end).replace(/\s+$/, '');
    rest = rest.slice(resume).replace(/^\n+/, '');
    const opened = inFence;
    inFence = (fenceCount(piece) % 2 === 1) !== inFence;
    if (piece.trim() === '') continue;
    chunks.push(`${opened ? `${FENCE}\n` : ''}${piece}${inFence ? `\n${FENCE}` : ''}`);
  }
  return chunks;
}

const EMPTY_ANSWER = '_(empty answer)_';
// Leaves a margin under the cumulative block-text budget for the block containers themselves.
const ANSWER_TEXT_BUDGET = BLOCK_KIT_LIMITS.messageBlockText - 1000;

/** One answer message from its chunks (see `planAnswerMessages`). */
export function answerMessage(chunks: readonly string[]): SlackMessage {
  const blocks: KnownBlock[] = chunks.map((chunk) => ({
    type: 'section',
    text: { type: 'mrkdwn', text: chunk },
  }));
  return { text: truncateText(chunks.join('\n\n'), BLOCK_KIT_LIMITS.messageText), blocks };
}

/**
 * Turns an answer of any length into messages Slack accepts: secrets redacted, sections of at most 3,000
 * characters, few enough per message to stay under the block count and cumulative text limits, and a
 * fallback `text` of at most 4,000 characters. A long answer becomes several messages, in order; it is
 * never rejected with `invalid_blocks` or `msg_too_long`.
 */
export function buildAnswerMessages(mrkdwn: string): SlackMessage[] {
  return planAnswerMessages(mrkdwn).map(answerMessage);
}

/**
 * The chunks of each message an answer becomes, in order: what `buildAnswerMessages` renders, kept as
 * plain data so a delivery can store its plan and resume at the first message not yet posted.
 */
export function planAnswerMessages(mrkdwn: string): string[][] {
  const chunks = splitForSlack(redactKnownPatterns(mrkdwn), { maxChars: BLOCK_KIT_LIMITS.sectionText });
  if (chunks.length === 0) return [[EMPTY_ANSWER]];
  const messages: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const chunk of chunks) {
    const full = current.length >= BLOCK_KIT_LIMITS.messageBlocks || size + chunk.length > ANSWER_TEXT_BUDGET;
    if (current.length > 0 && full) {
      messages.push(current);
      current = [];
      size = 0;
    }
    current.push(chunk);
    size += chunk.length;
  }
  messages.push(current);
  return messages;
}
