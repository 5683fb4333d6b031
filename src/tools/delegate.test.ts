import { describe, expect, it } from 'vitest';
import { toolContext } from '../../test/support/tool-context.js';
import { createDelegateTool } from './delegate.js';

describe('delegate', () => {
  const delegate = createDelegateTool(() => []);

  it('runs without asking: the nested agent asks for its own calls', async () => {
    expect(await delegate.permission({ task: 'check disk' }, toolContext())).toMatchObject({ type: 'allow' });
    expect(delegate.idempotent).toBe(true);
  });

  it('accepts a short agent name and refuses anything else', () => {
    expect(delegate.parse({ task: 'check disk', agent: 'db-checker' })).toEqual({
      success: true,
      data: { task: 'check disk', agent: 'db-checker' },
    });
    expect(delegate.parse({ task: 'check disk', agent: '../Other Agent' }).success).toBe(false);
    expect(delegate.parse({ task: '' }).success).toBe(false);
  });
});
