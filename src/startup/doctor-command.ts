import pino from 'pino';
import { loadConfig } from '../config.js';
import { connectMcpServers } from '../mcp/index.js';
import { createRedactor } from '../secrets/index.js';
import { policyVocabulary } from '../tools/index.js';
import { toolEnvironment } from '../tools/tool-environment.js';
import { checkClient, createOpenAIClient, inspectDatabaseReadOnly, loadTools } from './build-parts.js';
import { mcpServerChecks } from './check-mcp-servers.js';
import { runDoctor } from './run-doctor.js';
import { startupChecks } from './startup-checks.js';

/** `holdfast doctor`: every start-up check, read-only, against a bot that may already be running. */
export function doctorCommand(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return runDoctor({
    loadConfig: () => loadConfig(env, cwd),
    checks: async (config) => {
      const logger = pino({ level: config.logLevel === 'debug' ? 'debug' : 'silent' });
      // Every server is tried, as if optional, so each gets its own line; they are closed before the
      // checks run, since what each check reports is already known.
      const mcp = await connectMcpServers(
        config.mcpServers.map((server) => ({ ...server, optional: true })),
        {
          logger,
          redact: createRedactor({ secrets: config.secrets }).redact,
          baseEnv: toolEnvironment(config.toolEnv),
        },
      );
      const states = mcp.states();
      const tools = await loadTools(config, mcp.tools()).finally(() => mcp.close());
      return [
        ...startupChecks(config, {
          vocabulary: policyVocabulary(tools),
          slackClient: checkClient(config, logger),
          openai: createOpenAIClient(config),
          inspectDatabase: inspectDatabaseReadOnly,
          checkAppToken: true,
          mayBeRunning: true,
        }),
        ...mcpServerChecks(config.mcpServers, states),
      ];
    },
    write: (line) => process.stdout.write(`${line}\n`),
  });
}
