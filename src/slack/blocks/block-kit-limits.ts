import type { AnyBlock, Button, Confirm, KnownBlock, TextObject } from '@slack/types';
import { HoldfastError } from '../../errors.js';

/**
 * Block Kit limits (docs.slack.dev/reference/block-kit). `messageText` is holdfast's own ceiling: Slack
 * truncates `text` at 40,000 characters but recommends 4,000. `messageBlockText` is a cumulative budget
 * for all text inside one message's blocks: Slack rejects long block sets with `msg_blocks_too_long`
 * well before 50 full sections (about 12,000 characters, undocumented; slackapi/bolt-js#2509, #2867),
 * so we stay clearly below it.
 */
export const BLOCK_KIT_LIMITS = {
  messageBlocks: 50,
  surfaceBlocks: 100,
  messageText: 4000,
  messageBlockText: 10_000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  markdownBlockText: 12_000,
  viewTitle: 24,
  viewCloseText: 24,
  privateMetadata: 3000,
} as const;

export type BlockKitSurface = 'message' | 'home' | 'modal';

export interface BlockKitPayload {
  readonly type?: string;
  readonly text?: string;
  readonly blocks: readonly AnyBlock[];
  /** Modals only. */
  readonly title?: TextObject;
  readonly close?: TextObject;
  readonly private_metadata?: string;
}

/** A message or view breaks a Block Kit limit; Slack would answer `invalid_blocks` or similar. */
export class BlockKitLimitError extends HoldfastError {
  readonly code = 'block_kit_limit';
  constructor(readonly violations: readonly string[]) {
    super(`Block Kit limits exceeded: ${violations.slice(0, 10).join('; ')}`);
  }
}

class Checker {
  readonly violations: string[] = [];
  blockText = 0;

  fail(message: string): void {
    this.violations.push(message);
  }

  text(path: string, value: TextObject | undefined, max: number, plainOnly = false): void {
    if (value === undefined) {
      this.fail(`${path} is missing`);
      return;
    }
    if (value.type !== 'plain_text' && (plainOnly || value.type !== 'mrkdwn')) {
      this.fail(
        `${path} must be ${plainOnly ? 'plain_text' : 'plain_text or mrkdwn'}, got ${String(value.type)}`,
      );
    }
    const length = value.text.length;
    this.blockText += length;
    if (length === 0 || value.text.trim() === '') this.fail(`${path} is empty`);
    if (length > max) this.fail(`${path} is ${length} characters (max ${max})`);
  }

  length(path: string, value: string | undefined, max: number): void {
    if (value !== undefined && value.length > max)
      this.fail(`${path} is ${value.length} characters (max ${max})`);
  }

  confirm(path: string, confirm: Confirm): void {
    this.text(`${path}.title`, confirm.title, BLOCK_KIT_LIMITS.confirmTitle, true);
    this.text(`${path}.text`, confirm.text, BLOCK_KIT_LIMITS.confirmText);
    this.text(`${path}.confirm`, confirm.confirm, BLOCK_KIT_LIMITS.confirmButton, true);
    this.text(`${path}.deny`, confirm.deny, BLOCK_KIT_LIMITS.confirmButton, true);
  }

  button(path: string, button: Button): void {
    this.text(`${path}.text`, button.text, BLOCK_KIT_LIMITS.buttonText, true);
    this.length(`${path}.value`, button.value, BLOCK_KIT_LIMITS.buttonValue);
    this.length(`${path}.url`, button.url, BLOCK_KIT_LIMITS.buttonUrl);
    this.length(`${path}.action_id`, button.action_id, BLOCK_KIT_LIMITS.actionId);
    if (button.style !== undefined && button.style !== 'primary' && button.style !== 'danger') {
      this.fail(`${path}.style must be primary or danger`);
    }
    if (button.confirm) this.confirm(`${path}.confirm`, button.confirm);
  }

  element(path: string, element: { type: string; action_id?: string }): void {
    if (element.type === 'button') this.button(path, element as Button);
    else this.length(`${path}.action_id`, element.action_id, BLOCK_KIT_LIMITS.actionId);
  }

  block(path: string, anyBlock: AnyBlock): void {
    this.length(`${path}.block_id`, anyBlock.block_id, BLOCK_KIT_LIMITS.blockId);
    // The generic `Block` member of AnyBlock carries only `type`; known types are narrowed from here.
    const block = anyBlock as KnownBlock;
    switch (block.type) {
      case 'section': {
        if (block.text === undefined && block.fields === undefined) this.fail(`${path} needs text or fields`);
        if (block.text !== undefined) this.text(`${path}.text`, block.text, BLOCK_KIT_LIMITS.sectionText);
        const fields = block.fields ?? [];
        if (fields.length > BLOCK_KIT_LIMITS.sectionFields) {
          this.fail(`${path}.fields has ${fields.length} items (max ${BLOCK_KIT_LIMITS.sectionFields})`);
        }
        for (const [i, field] of fields.entries()) {
          this.text(`${path}.fields[${i}]`, field, BLOCK_KIT_LIMITS.sectionFieldText);
        }
        if (block.accessory) this.element(`${path}.accessory`, block.accessory);
        return;
      }
      case 'header':
        this.text(`${path}.text`, block.text, BLOCK_KIT_LIMITS.headerText, true);
        return;
      case 'context': {
        if (block.elements.length === 0) this.fail(`${path}.elements is empty`);
        if (block.elements.length > BLOCK_KIT_LIMITS.contextElements) {
          this.fail(
            `${path}.elements has ${block.elements.length} items (max ${BLOCK_KIT_LIMITS.contextElements})`,
          );
        }
        block.elements.forEach((element, i) => {
          if (element.type === 'plain_text' || element.type === 'mrkdwn') {
            this.text(`${path}.elements[${i}]`, element, BLOCK_KIT_LIMITS.contextText);
          }
        });
        return;
      }
      case 'actions': {
        if (block.elements.length === 0) this.fail(`${path}.elements is empty`);
        if (block.elements.length > BLOCK_KIT_LIMITS.actionsElements) {
          this.fail(
            `${path}.elements has ${block.elements.length} items (max ${BLOCK_KIT_LIMITS.actionsElements})`,
          );
        }
        const actionIds = new Set<string>();
        block.elements.forEach((element, i) => {
          this.element(`${path}.elements[${i}]`, element);
          const id = element.action_id;
          if (id === undefined) return;
          if (actionIds.has(id))
            this.fail(`${path}.elements[${i}].action_id "${id}" repeats within the block`);
          actionIds.add(id);
        });
        return;
      }
      case 'markdown':
        this.blockText += block.text.length;
        if (block.text.length > BLOCK_KIT_LIMITS.markdownBlockText) {
          this.fail(
            `${path}.text is ${block.text.length} characters (max ${BLOCK_KIT_LIMITS.markdownBlockText})`,
          );
        }
        return;
      default:
        // Other block types are not produced by holdfast; Slack validates them itself.
        return;
    }
  }
}

function surfaceOf(payload: BlockKitPayload): BlockKitSurface {
  if (payload.type === 'home') return 'home';
  if (payload.type === 'modal') return 'modal';
  return 'message';
}

/** Every limit a message or view breaks, as readable strings; empty when it is safe to send. */
export function findBlockKitViolations(payload: BlockKitPayload): string[] {
  const surface = surfaceOf(payload);
  const checker = new Checker();
  const maxBlocks = surface === 'message' ? BLOCK_KIT_LIMITS.messageBlocks : BLOCK_KIT_LIMITS.surfaceBlocks;
  if (payload.blocks.length > maxBlocks) {
    checker.fail(`${payload.blocks.length} blocks (max ${maxBlocks} in a ${surface})`);
  }
  const blockIds = new Set<string>();
  payload.blocks.forEach((block, i) => {
    checker.block(`blocks[${i}] (${block.type})`, block);
    if (block.block_id === undefined) return;
    if (blockIds.has(block.block_id)) checker.fail(`blocks[${i}].block_id "${block.block_id}" is not unique`);
    blockIds.add(block.block_id);
  });
  if (surface === 'modal') {
    checker.text('title', payload.title, BLOCK_KIT_LIMITS.viewTitle, true);
    if (payload.close) checker.text('close', payload.close, BLOCK_KIT_LIMITS.viewCloseText, true);
    checker.length('private_metadata', payload.private_metadata, BLOCK_KIT_LIMITS.privateMetadata);
  }
  if (surface === 'message') {
    const text = payload.text;
    if (text === undefined || text.trim() === '') checker.fail('fallback text is empty');
    else if (text.length > BLOCK_KIT_LIMITS.messageText) {
      checker.fail(`fallback text is ${text.length} characters (max ${BLOCK_KIT_LIMITS.messageText})`);
    }
    if (checker.blockText > BLOCK_KIT_LIMITS.messageBlockText) {
      checker.fail(
        `blocks hold ${checker.blockText} characters of text (max ${BLOCK_KIT_LIMITS.messageBlockText})`,
      );
    }
  }
  return checker.violations;
}

/** Throws {@link BlockKitLimitError} naming every broken limit; returns the payload unchanged otherwise. */
export function assertWithinBlockKitLimits<T extends BlockKitPayload>(payload: T): T {
  const violations = findBlockKitViolations(payload);
  if (violations.length > 0) throw new BlockKitLimitError(violations);
  return payload;
}

/** The text a set of blocks carries, counted the way {@link BLOCK_KIT_LIMITS.messageBlockText} is. */
export function measureBlockText(blocks: readonly AnyBlock[]): number {
  const checker = new Checker();
  for (const [i, block] of blocks.entries()) checker.block(`blocks[${i}]`, block);
  return checker.blockText;
}
