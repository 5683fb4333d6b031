import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { toolContext } from '../../test/support/tool-context.js';
import { BUILTIN_TOOL_VOCABULARY, createBuiltinTools } from './index.js';

describe('BUILTIN_TOOL_VOCABULARY', () => {
  it('names every built-in tool and the permission types each declares, with everything configured', () => {
    const dir = tempDir();
    const tools = createBuiltinTools({
      workdir: dir.path,
      env: {},
      shellTimeoutMs: 1_000,
      httpAllowHosts: [],
      httpInternalHosts: [],
      sqlUrl: dir.file('team.db'),
      holdfastDatabasePath: path.join(dir.path, 'holdfast.db'),
      deployServices: { api: { command: 'true' } },
    });
    expect(tools.map((tool) => ({ tool: tool.name, permissionTypes: tool.permissionTypes }))).toEqual(
      BUILTIN_TOOL_VOCABULARY,
    );
  });

  it('lists the permission type each asking tool really asks under', async () => {
    const dir = tempDir();
    const [shell] = createBuiltinTools({
      workdir: dir.path,
      env: {},
      shellTimeoutMs: 1_000,
      httpAllowHosts: [],
      httpInternalHosts: [],
      holdfastDatabasePath: dir.file('holdfast.db'),
      deployServices: {},
    });
    const asked = await shell!.permission({ command: 'ls' }, toolContext());
    expect(asked).toMatchObject({ type: 'ask', permissionType: 'shell' });
    expect(shell!.permissionTypes).toEqual(['shell']);
  });
});
