import { describe, expect, it } from 'vitest';
import { mcpToolName } from './mcp-tool-name.js';

describe('mcpToolName', () => {
  it('joins server and tool with two underscores', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github__create_issue');
  });

  it('makes characters OpenAI does not allow into underscores', () => {
    expect(mcpToolName('k8s', 'pods.list/all')).toBe('k8s__pods_list_all');
  });

  it('keeps long names within 64 characters and apart from each other', () => {
    const first = mcpToolName('observability', `${'x'.repeat(60)}_first`);
    const second = mcpToolName('observability', `${'x'.repeat(60)}_second`);
    expect(first).toHaveLength(64);
    expect(first).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
  });
});
