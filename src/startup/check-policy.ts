import { loadPolicyFile } from '../approvals/load-policy.js';
import type { PolicyVocabulary } from '../approvals/policy-names.js';
import { ConfigError } from '../errors.js';
import { ok, problem, type StartupCheck } from './startup-check.js';

/** `HOLDFAST_POLICY` parses, and every tool and permission type it names exists. */
export function policyCheck(options: { file: string; vocabulary: PolicyVocabulary }): StartupCheck {
  return {
    name: 'policy',
    async run() {
      try {
        const policy = loadPolicyFile(options.file, options.vocabulary);
        const rules = policy.rules.length;
        return ok(`${options.file}: ${rules} ${rules === 1 ? 'rule' : 'rules'}, every name known`);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        if (error.issues.length === 0)
          return problem(error.message, 'Set HOLDFAST_POLICY to the policy file.');
        return problem(
          `HOLDFAST_POLICY has ${error.issues.length === 1 ? 'a problem' : `${error.issues.length} problems`}:\n  ${error.issues.join('\n  ')}\n`,
          'Fix the file and start again.',
        );
      }
    },
  };
}
