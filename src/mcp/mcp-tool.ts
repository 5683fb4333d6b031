import { createHash } from 'node:crypto';
import type { Ajv, ValidateFunction } from 'ajv';
import { canonicalJson } from '../agent/hash-arguments.js';
import { PersonInputNeeded } from '../agent/person-question.js';
import type { Tool, ToolPermission } from '../agent/tool.js';
import { failedRun } from '../agent/tool-outcome.js';
import { elicitResultOf, questionFrom } from './mcp-question.js';
import { mcpResultText } from './mcp-result-text.js';
import type { AskDuringCall, McpServerConnection, McpToolDefinition } from './mcp-server-connection.js';
import { mcpToolName } from './mcp-tool-name.js';

/** The digest approvals bind: the server, and the tool's name, description and input schema. */
function mcpDefinitionHash(server: string, definition: McpToolDefinition | undefined): string {
  const shown = definition
    ? {
        server,
        name: definition.name,
        description: definition.description ?? '',
        inputSchema: definition.inputSchema,
      }
    : { server, missing: true };
  return createHash('sha256').update(canonicalJson(shown)).digest('hex');
}

/**
 * A server's tool as a holdfast `Tool`, read live from the connection: a changed definition changes the
 * description and schema the model sees and the digest approvals bind, from the next call on. Arguments
 * are checked against the server's input schema before anything else sees them. Annotations are the
 * server's claims: they allow a call without asking, or a repeat after a crash, only where the operator
 * trusts that server's annotations.
 */
export function createMcpTool(
  connection: McpServerConnection,
  remoteName: string,
  deps: {
    readonly ajv: Ajv;
    /** A server's words reach the model: a configured secret in them does not (invariant 9). */
    readonly redact: (text: string) => string;
  },
): Tool {
  const { ajv, redact } = deps;
  const server = connection.name;
  const name = mcpToolName(server, remoteName);
  const permissionType = `mcp:${server}`;
  const trusted = connection.config.trustAnnotations;
  const compiled = new Map<string, ValidateFunction>();
  const current = () => connection.definition(remoteName);
  const validator = (definition: McpToolDefinition): ValidateFunction => {
    const key = mcpDefinitionHash(server, definition);
    let validate = compiled.get(key);
    if (!validate) {
      const { $schema: _ignored, ...schema } = definition.inputSchema as Record<string, unknown>;
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  };
  return {
    name,
    get description() {
      const definition = current();
      const said = definition?.description?.trim() || definition?.title || remoteName;
      return redact(`${said} (tool "${remoteName}" of the MCP server "${server}")`);
    },
    get jsonSchema() {
      const { $schema: _ignored, ...schema } = (current()?.inputSchema ?? { type: 'object' }) as Record<
        string,
        unknown
      >;
      return schema;
    },
    get definitionHash() {
      return mcpDefinitionHash(server, current());
    },
    get definitionChange() {
      return describeChange(connection.previousDefinition(remoteName), current());
    },
    get idempotent() {
      return trusted && current()?.annotations?.idempotentHint === true;
    },
    // One permission type per server, so a policy can route a server's requests (`mcp:github`) to its
    // owners, and name single tools where they differ.
    permissionTypes: [permissionType],
    parse(input) {
      const definition = current();
      if (!definition)
        return { success: false, error: `the MCP server "${server}" no longer offers "${remoteName}"` };
      let validate: ValidateFunction;
      try {
        validate = validator(definition);
      } catch (error) {
        return {
          success: false,
          error: `the MCP server "${server}" gave "${remoteName}" an input schema that cannot be checked (${(error as Error).message})`,
        };
      }
      if (validate(input)) return { success: true, data: input };
      return { success: false, error: ajv.errorsText(validate.errors, { dataVar: 'arguments' }) };
    },
    permission(): ToolPermission {
      const annotations = current()?.annotations;
      if (trusted && annotations?.readOnlyHint === true) {
        return {
          type: 'allow',
          reason: `the MCP server "${server}" marks it read-only, and its annotations are trusted`,
        };
      }
      const destructive = annotations?.destructiveHint === true ? ' (the server marks it destructive)' : '';
      return {
        type: 'ask',
        permissionType,
        summary: `call ${remoteName} on the MCP server ${server}${destructive}`,
      };
    },
    async execute(args, ctx) {
      // Each question the server asks is answered from the requester's stored answer when there is one;
      // the first without one is put off (cancelled for now), and the call waits for it (see
      // `PersonInputNeeded`): it runs again once answered, and the server asks again and is answered.
      let asked = 0;
      let needed: PersonInputNeeded | undefined;
      const ask: AskDuringCall = async (request) => {
        const question = questionFrom(server, request, redact);
        const ordinal = asked++;
        if (needed) return { action: 'cancel' };
        const answer = await ctx.answerTo(ordinal, question);
        if (answer) return elicitResultOf(answer, question);
        needed = new PersonInputNeeded(ordinal, question);
        return { action: 'cancel' };
      };
      let result: Awaited<ReturnType<typeof connection.call>>;
      try {
        result = await connection.call(remoteName, args, ctx.signal, ask);
      } catch (error) {
        // However the put-off call ended, what it waits for is the answer.
        if (needed) throw needed;
        throw error;
      }
      if (needed) throw needed;
      const text = connection.hideCredentials(mcpResultText(result));
      // An error result (`isError`) ran and failed: the model reads the server's words, people see a failure.
      if (result.isError)
        return failedRun(text || 'The tool reported an error.', {
          error: 'the MCP server reported an error',
        });
      return text;
    },
  };
}

/** What differs between a tool's old and new definitions, for people ("its description changed"). */
function describeChange(
  before: McpToolDefinition | undefined,
  after: McpToolDefinition | undefined,
): string | undefined {
  if (!before) return undefined;
  if (!after) return 'the server no longer offers it';
  const parts: string[] = [];
  if ((before.description ?? '') !== (after.description ?? '')) parts.push('its description');
  const beforeSchema = before.inputSchema as { properties?: Record<string, unknown> };
  const afterSchema = after.inputSchema as { properties?: Record<string, unknown> };
  const was = Object.keys(beforeSchema.properties ?? {});
  const now = Object.keys(afterSchema.properties ?? {});
  const added = now.filter((name) => !was.includes(name));
  const removed = was.filter((name) => !now.includes(name));
  if (added.length > 0) parts.push(`its arguments (added ${added.join(', ')})`);
  if (removed.length > 0) parts.push(`its arguments (removed ${removed.join(', ')})`);
  if (
    added.length === 0 &&
    removed.length === 0 &&
    canonicalJson(before.inputSchema) !== canonicalJson(after.inputSchema)
  )
    parts.push('the rules for its arguments');
  return parts.length === 0 ? undefined : `${parts.join(' and ')} changed`;
}
