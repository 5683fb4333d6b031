/**
 * An example plugin: `open_incident` numbers an incident when it is first proposed and opens it once
 * approved. The number lives in `ctx.kv`, so the approval card, the resumed call after a restart and the
 * next incident in the thread all agree on it.
 *
 *   HOLDFAST_PLUGINS=examples/plugins/incidents.ts npm start
 */
import { z } from 'zod';
import { defineTool } from '../../src/tools/index.js';

interface IncidentState {
  lastNumber: number;
  /** Tool call id → incident number, so a resumed call reuses the number its card showed. */
  drafts: Record<string, number>;
  opened: number[];
}

function incidents(kv: { get<T>(key: string): T | undefined; set(key: string, value: unknown): void }) {
  const state = kv.get<IncidentState>('incidents') ?? { lastNumber: 0, drafts: {}, opened: [] };
  return { state, save: () => kv.set('incidents', state) };
}

export const openIncident = defineTool({
  name: 'open_incident',
  description: 'Open an incident with a title and a severity. Needs approval.',
  parameters: z.object({
    title: z.string().min(3).max(200),
    severity: z.enum(['sev1', 'sev2', 'sev3', 'sev4']),
  }),
  // Declared so a policy may route `incident` approvals (approvers.overrides.incident) without it
  // being taken for a typo.
  permissionTypes: ['incident'],
  permission(args, ctx) {
    const { state, save } = incidents(ctx.kv);
    let number = state.drafts[ctx.toolCallId];
    if (number === undefined) {
      number = state.lastNumber + 1;
      state.lastNumber = number;
      state.drafts[ctx.toolCallId] = number;
      save();
    }
    return {
      type: 'ask',
      permissionType: 'incident',
      summary: `open INC-${number} (${args.severity}): ${args.title}`,
    };
  },
  execute(args, ctx) {
    const { state, save } = incidents(ctx.kv);
    const number = state.drafts[ctx.toolCallId];
    if (number === undefined) return 'No draft for this call; ask again to open the incident.';
    if (!state.opened.includes(number)) state.opened.push(number);
    save();
    return `Opened INC-${number} (${args.severity}): ${args.title}. Incidents opened in this thread: ${state.opened
      .map((n) => `INC-${n}`)
      .join(', ')}.`;
  },
});
