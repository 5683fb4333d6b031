import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { resultOf, toolContext } from '../../test/support/tool-context.js';
import { ConfigError } from '../errors.js';
import { createDeployTool } from './deploy.js';

const env = { PATH: '/usr/bin:/bin' };

/** A deploy whose command leaves a trace of the ref it was given, so a test can see whether it ran. */
function deployTool() {
  const dir = tempDir();
  const trace = dir.file('deployed.txt');
  const tool = createDeployTool({
    services: { api: { command: `printf '%s' "$HOLDFAST_DEPLOY_SERVICE@$HOLDFAST_DEPLOY_REF" > ${trace}` } },
    workdir: dir.path,
    env,
  });
  return { tool, ran: () => (fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8') : undefined) };
}

describe('deploy', () => {
  it.each([
    ['-f', 'starts with "-", which a command would read as an option'],
    ['--upload-pack=touch /tmp/owned', 'starts with "-", which a command would read as an option'],
    ['main;reboot', 'holds ";", which a shell would interpret'],
    ['main && reboot', 'holds " ", which a shell would interpret'],
    ['$(id)', 'holds "$", which a shell would interpret'],
    ['`id`', 'holds "`", which a shell would interpret'],
    ["it's", `holds "'", which a shell would interpret`],
    ['a"b', "holds '\"', which a shell would interpret"],
    ['a|b', 'holds "|", which a shell would interpret'],
    ['a>b', 'holds ">", which a shell would interpret'],
    ['a<b', 'holds "<", which a shell would interpret'],
    ['(main)', 'holds "(", which a shell would interpret'],
    ['main\nreboot', 'holds a line break, which a shell would interpret'],
    ['release/*', 'holds "*", which a shell would interpret'],
    ['v1.?', 'holds "?", which a shell would interpret'],
    ['main..attacker', 'holds "..", which git reads as a range'],
    ['../../etc/passwd', 'holds "..", which git reads as a range'],
    ['.hidden', 'is not a branch, tag or commit name'],
    ['release/.x', 'is not a valid git ref name'],
    ['release//x', 'is not a valid git ref name'],
    ['release/', 'is not a valid git ref name'],
    ['main.lock', 'is not a valid git ref name'],
    ['a'.repeat(201), 'is not a branch, tag or commit name'],
  ])('refuses the ref %j before anything is asked', (ref, why) => {
    const { tool } = deployTool();
    const parsed = tool.parse({ service: 'api', ref });
    expect(parsed.success).toBe(false);
    expect(parsed.success ? '' : parsed.error).toContain(why);
  });

  it.each(['main', 'v1.2.3', 'release/2024.06', 'hotfix/INC-42_db', '3f2a9c1'])(
    'accepts the ref %s',
    (ref) => {
      const { tool } = deployTool();
      expect(tool.parse({ service: 'api', ref }).success).toBe(true);
    },
  );

  it('refuses a service that is not configured, naming the ones that are', () => {
    const { tool } = deployTool();
    const parsed = tool.parse({ service: '--all' });
    expect(parsed.success ? '' : parsed.error).toContain('one of the configured services: api');
  });

  it('refuses to be configured with a service name a command could misread', () => {
    for (const name of ['-rf', 'api;reboot', 'api web', '$(id)']) {
      expect(() =>
        createDeployTool({ services: { [name]: { command: 'true' } }, workdir: '.', env }),
      ).toThrow(ConfigError);
    }
    expect(() => createDeployTool({ services: { '-rf': { command: 'true' } }, workdir: '.', env })).toThrow(
      'HOLDFAST_DEPLOY_SERVICES: the service name "-rf" is refused',
    );
  });

  it('asks with permission type deploy, and runs the configured command with the ref', async () => {
    const { tool, ran } = deployTool();
    expect(await tool.permission({ service: 'api', ref: 'v1.2.3' }, toolContext())).toEqual({
      type: 'ask',
      permissionType: 'deploy',
      summary: 'deploy api at v1.2.3',
    });
    expect(await resultOf(tool, { service: 'api', ref: 'v1.2.3' }, toolContext())).toBe(
      '(no output)\n[exit code 0]',
    );
    expect(ran()).toBe('api@v1.2.3');
  });

  it('does not run a refused ref even when called directly', async () => {
    const { tool, ran } = deployTool();
    expect(await resultOf(tool, { service: 'api', ref: '-f' }, toolContext())).toBe(
      'Refused ref "-f": it starts with "-", which a command would read as an option. Use a branch, tag or commit name.',
    );
    expect(ran()).toBeUndefined();
  });
});

describe('deploy effects, for the approval card', () => {
  it('names the service, the ref, the configured command, where it runs and the host', () => {
    const tool = createDeployTool({
      services: { api: { command: './deploy.sh api', cwd: 'release' } },
      workdir: '/srv/ops',
      env,
      host: 'ops-1',
    });

    expect(tool.effects?.({ service: 'api', ref: 'v1.2.3' })).toEqual({
      deploy: { service: 'api', ref: 'v1.2.3' },
      command: './deploy.sh api',
      workdir: '/srv/ops/release',
      host: 'ops-1',
      changes: 'the running api service: whatever its deploy command does',
    });
  });

  it('says nothing about arguments the tool would refuse', () => {
    const { tool } = deployTool();

    expect(tool.effects?.({ service: 'nope' })).toBeUndefined();
  });
});
