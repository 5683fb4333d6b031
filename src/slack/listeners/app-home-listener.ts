import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { type InboxDeps, pendingForViewer, recentDecisions } from '../approvals/approval-inbox-query.js';
import { grantItems } from '../approvals/manage-grants.js';
import { buildAppHome } from '../blocks/index.js';
import { appHomeOpenedSchema } from '../payloads.js';

export async function publishHome(deps: InboxDeps, viewer: string): Promise<void> {
  const [{ views }, recent, grants] = await Promise.all([
    pendingForViewer(deps, { viewer }),
    recentDecisions(deps, { viewer, limit: 10 }),
    deps.store.grants.list({ createdBy: viewer }).then((found) => grantItems(deps, found)),
  ]);
  await deps.slack.publishHome(viewer, buildAppHome({ pending: views, recent, viewer, grants }));
}

/** App Home: the viewer's inbox plus recent decisions, rebuilt each time the tab opens. */
export function registerAppHome(app: App, deps: InboxDeps & { logger: Logger }): void {
  app.event('app_home_opened', async ({ event }) => {
    const parsed = appHomeOpenedSchema.safeParse(event);
    if (!parsed.success || (parsed.data.tab && parsed.data.tab !== 'home')) return;
    await publishHome(deps, parsed.data.user).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not publish App Home');
    });
  });
}
