import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { EffectsOf } from '../agent/tool.js';
import type { ApproverDirectory } from '../approvals/decide-approval.js';
import type { Runtime } from '../runtime/create-runtime.js';
import type { Redact } from '../secrets/index.js';
import { isStoreFault } from '../store/store-errors.js';
import { registerAgentSessionStoppedListener } from './listeners/agent-session-stopped-listener.js';
import { publishHome, registerAppHome } from './listeners/app-home-listener.js';
import { registerApprovalActionListener } from './listeners/approval-action-listener.js';
import { registerApprovalsCommand } from './listeners/approvals-command-listener.js';
import { registerDecisionModalListener } from './listeners/decision-modal-listener.js';
import { registerEditModalListener } from './listeners/edit-modal-listener.js';
import { registerGrantRevokeListener } from './listeners/grant-revoke-listener.js';
import { registerMessageListeners } from './listeners/message-listeners.js';
import { registerQuestionModalListener } from './listeners/question-modal-listener.js';
import { registerStopTurnListener } from './listeners/stop-turn-listener.js';
import { registerUnknownInteractionListeners } from './listeners/unknown-interaction-listener.js';
import type { SlackPort } from './web-api/slack-port.js';

export interface AttachSlackOptions {
  readonly app: App;
  readonly runtime: Runtime;
  readonly slack: SlackPort;
  /**
   * What a message's names and thread history are read through once it is kept: a port that answers or
   * fails fast (see `buildSlackPorts`), so a thread's turns are not held up behind a rate limit. `slack`
   * unless given.
   */
  readonly intake?: SlackPort;
  readonly directory: ApproverDirectory;
  /** Where calls run, by tool, for what inboxes say about a request. */
  readonly effectsOf?: EffectsOf;
  /** From `auth.test`: how holdfast recognises mentions of itself and its own messages. */
  readonly botUserId: string;
  readonly teamId?: string;
  /** From `auth.test`: the Enterprise Grid organisation of the installation, undefined outside Grid. */
  readonly enterpriseId?: string;
  readonly logger: Logger;
  /** The redactor built from the configured secrets; answers go through it before formatting. */
  readonly redact: Redact;
  /** The thread status's ports (see `SlackPorts.status`); `slack` for both when absent. */
  readonly status?: { readonly optional: SlackPort; readonly certain: SlackPort };
  /** The clock grants expire by. */
  readonly now?: () => number;
}

/** Connects a Bolt app's listeners to the runtime (what turns show goes out through the turn observer). */
export function attachSlack(options: AttachSlackOptions): void {
  const { app, runtime, slack, directory, logger, botUserId } = options;
  const inbox = {
    store: runtime.store,
    policy: runtime.policy,
    directory,
    slack,
    logger,
    effectsOf: options.effectsOf,
  };
  registerMessageListeners(app, {
    runtime,
    slack: options.intake ?? slack,
    botUserId,
    logger,
    teamId: options.teamId,
    redact: options.redact,
  });
  registerApprovalActionListener(app, {
    runtime,
    slack,
    logger,
    directory,
    installationEnterpriseId: options.enterpriseId,
    redact: options.redact,
    refreshHome: (userId) => publishHome(inbox, userId),
  });
  registerDecisionModalListener(app, {
    runtime,
    slack,
    logger,
    installationEnterpriseId: options.enterpriseId,
    redact: options.redact,
    refreshHome: (userId) => publishHome(inbox, userId),
    now: options.now ?? Date.now,
  });
  registerEditModalListener(app, {
    runtime,
    slack,
    logger,
    directory,
    installationEnterpriseId: options.enterpriseId,
    redact: options.redact,
    refreshHome: (userId) => publishHome(inbox, userId),
  });
  registerQuestionModalListener(app, {
    runtime,
    slack,
    logger,
    installationEnterpriseId: options.enterpriseId,
    refreshHome: (userId) => publishHome(inbox, userId),
  });
  registerGrantRevokeListener(app, {
    ...inbox,
    redact: options.redact,
    refreshHome: (userId) => publishHome(inbox, userId),
  });
  registerApprovalsCommand(app, { ...inbox, redact: options.redact });
  registerAppHome(app, inbox);
  registerStopTurnListener(app, { runtime, logger, teamId: options.teamId });
  registerAgentSessionStoppedListener(app, {
    runtime,
    slack: options.status?.certain ?? slack,
    logger,
    teamId: options.teamId,
  });
  registerUnknownInteractionListeners(app, { logger });
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
    // Not saved: rethrown so the receiver refuses the delivery and Slack sends it again (see
    // deferEventAcks); everything else was handled as well as it could be.
    if (isStoreFault(error.original ?? error)) throw error;
  });
}
