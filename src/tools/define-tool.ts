import { z } from 'zod';
import type { CallEffects, Tool, ToolContext, ToolPermission } from '../agent/tool.js';
import type { ToolOutput } from '../agent/tool-outcome.js';

export interface ToolDefinition<Schema extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  /** Defaults to asking for approval with the tool name as permission type. */
  readonly permission?: (
    args: z.output<Schema>,
    ctx: ToolContext,
  ) => ToolPermission | Promise<ToolPermission>;
  readonly idempotent?: boolean;
  /**
   * The permission types `permission` asks under (`shell`, `deploy`, …), which a policy's approvers,
   * quorum and expiry overrides may name. Without a `permission` function it is the tool's name.
   */
  readonly permissionTypes?: readonly string[];
  /** Where a call runs and what it may change, shown on its approval card. */
  readonly effects?: (args: z.output<Schema>) => CallEffects;
  readonly execute: (args: z.output<Schema>, ctx: ToolContext) => Promise<ToolOutput> | ToolOutput;
}

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool. The zod schema is the single source of truth: it becomes the JSON schema the model
 * sees, and it parses whatever the model sends back before `permission` or `execute` see it.
 */
export function defineTool<Schema extends z.ZodType>(
  definition: ToolDefinition<Schema>,
): Tool<z.output<Schema>> {
  if (!toolName.test(definition.name)) {
    throw new TypeError(
      `Tool name "${definition.name}" must match ${toolName} (OpenAI's rule for function names)`,
    );
  }
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(definition.parameters, {
    io: 'input',
  }) as Record<string, unknown>;
  const permission =
    definition.permission ??
    ((): ToolPermission => ({
      type: 'ask',
      permissionType: definition.name,
      summary: `run ${definition.name}`,
    }));
  return {
    name: definition.name,
    description: definition.description,
    jsonSchema,
    idempotent: definition.idempotent ?? false,
    permissionTypes: definition.permissionTypes ?? (definition.permission ? undefined : [definition.name]),
    parse(input) {
      const result = definition.parameters.safeParse(input);
      if (result.success) return { success: true, data: result.data };
      return { success: false, error: z.prettifyError(result.error) };
    },
    permission,
    ...(definition.effects
      ? {
          effects(input: unknown) {
            const parsed = definition.parameters.safeParse(input);
            return parsed.success ? definition.effects?.(parsed.data) : undefined;
          },
        }
      : {}),
    async execute(args, ctx) {
      return definition.execute(args, ctx);
    },
  };
}
