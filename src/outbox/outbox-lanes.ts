import type { OutboxMessage } from '../store/outbox-message.js';

/**
 * The lanes of one conversation's outbox. Within a lane rows go in order; lanes do not wait for each
 * other, so a rewrite Slack keeps refusing never holds back an answer, and a DM never holds back the
 * thread.
 * - `thread`: new messages in the thread (cards, answers, notices), in the order people read them;
 * - `rewrite`: cards rewritten in place, whose order in the thread is already set;
 * - `direct`: direct messages (approvers' copies of a card, notices to the requester).
 */
export type OutboxLane = 'thread' | 'rewrite' | 'direct';

export function laneOf(message: OutboxMessage): OutboxLane {
  switch (message.type) {
    case 'approval-card':
    case 'approval-plan':
    case 'answer':
    case 'turn-notice':
      return 'thread';
    case 'card-update':
      return 'rewrite';
    case 'approver-copy':
    case 'direct-message':
      return 'direct';
  }
}

/** The requests whose card (or DM copy, or plan) the row posts: their rewrites wait until it is posted. */
export function cardRequestsOf(message: OutboxMessage): readonly string[] {
  switch (message.type) {
    case 'approval-card':
    case 'approver-copy':
      return [message.requestId];
    case 'approval-plan':
      return message.requestIds;
    default:
      return [];
  }
}
