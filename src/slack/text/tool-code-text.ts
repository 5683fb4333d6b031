import { inlineCodeSafe } from './escape-mrkdwn.js';
import { escapeAndTruncate } from './truncate-text.js';

/** A tool name as inline code in a reply: escaped and kept short. */
export function toolCodeText(toolName: string): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(toolName), 80)}\``;
}
