import pino from 'pino';
import { loadConfig } from '../config.js';
import { policyVocabulary } from '../tools/index.js';
import { checkClient, createOpenAIClient, inspectDatabaseReadOnly, loadTools } from './build-parts.js';
import { runDoctor } from './run-doctor.js';
import { startupChecks } from './startup-checks.js';

/** `holdfast doctor`: every start-up check, read-only, against a bot that may already be running. */
export function doctorCommand(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return runDoctor({
    loadConfig: () => loadConfig(env, cwd),
    checks: async (config) => {
      const logger = pino({ level: config.logLevel === 'debug' ? 'debug' : 'silent' });
      return startupChecks(config, {
        vocabulary: policyVocabulary(await loadTools(config)),
        slackClient: checkClient(config, logger),
        openai: createOpenAIClient(config),
        inspectDatabase: inspectDatabaseReadOnly,
        checkAppToken: true,
        mayBeRunning: true,
      });
    },
    write: (line) => process.stdout.write(`${line}\n`),
  });
}
