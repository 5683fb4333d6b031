import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import type { ConfiguredSecret } from './secrets/index.js';

/** What every MCP server entry may say, whatever its transport. */
interface McpServerCommon {
  readonly name: string;
  /** A server that cannot start leaves its tools out instead of stopping start-up. */
  readonly optional: boolean;
  /** The operator trusts the server's tool annotations (`readOnlyHint`, `idempotentHint`). */
  readonly trustAnnotations: boolean;
  /** How long one call may take before it is reported as failed. */
  readonly timeoutMs: number;
}

/** One server of `HOLDFAST_MCP_CONFIG`: a local command over stdio, or a remote one over Streamable HTTP. */
export type McpServerConfig =
  | (McpServerCommon & {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Exactly the variables the server gets beyond the basic ones (PATH, HOME…), values resolved. */
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    })
  | (McpServerCommon & {
      readonly type: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly oauth?: McpOAuthConfig;
    });

/**
 * OAuth for a remote server, without a browser: the client_credentials grant (a client secret), or a
 * refresh token issued to holdfast beforehand. The authorization server is found from the MCP server's
 * protected-resource metadata; `issuer`, when set, is the only one the credentials are ever sent to.
 */
export interface McpOAuthConfig {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly refreshToken?: string;
  readonly scope?: string;
  readonly issuer?: string;
}

const mcpConfigHint =
  'Use JSON such as {"mcpServers": {"files": {"command": "node", "args": ["server.js", "/srv/docs"]}}}.';

const serverName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'server names are 1-32 letters, digits, _ or -');

const common = {
  optional: z.boolean().default(false),
  trustAnnotations: z.boolean().default(false),
  timeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
};

const stdioSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names'), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  type: z.literal('stdio').optional(),
  ...common,
});

/** A credential is named, never written into the file: `${NAME}` (the variable, or the file `NAME_FILE` names). */
const secretReference = z
  .string()
  .regex(/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/, `a reference such as \${NAME}, never the secret itself`);

const oauthSchema = z
  .strictObject({
    clientId: z.string().min(1),
    clientSecret: secretReference.optional(),
    refreshToken: secretReference.optional(),
    scope: z.string().min(1).optional(),
    issuer: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).optional(),
  })
  .refine((oauth) => oauth.clientSecret !== undefined || oauth.refreshToken !== undefined, {
    error: 'give clientSecret (the client_credentials grant) or refreshToken',
  });

const httpSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }),
  headers: z.record(z.string().min(1), z.string()).default({}),
  oauth: oauthSchema.optional(),
  type: z.enum(['http', 'streamable-http']).optional(),
  ...common,
});

const fileSchema = z.object({
  mcpServers: z.record(serverName, z.union([stdioSchema, httpSchema])),
});

/** holdfast's own credentials and settings: no MCP server is handed these, whatever its entry says. */
const ownVariable = /^(SLACK_|OPENAI_|HOLDFAST_)/;

export interface McpConfigSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly readFile: (file: string) => string;
}

/**
 * Reads `HOLDFAST_MCP_CONFIG`. Values in `env`, `headers` and `oauth` may say `${NAME}`: the variable's
 * value, or the content of the file `NAME_FILE` names. Every value taken that way from a file, and every
 * header value, OAuth client secret or refresh token that references a variable, becomes a secret for the
 * redactor.
 */
export function loadMcpServers(
  file: string | undefined,
  sources: McpConfigSources,
): { servers: McpServerConfig[]; secrets: ConfiguredSecret[] } {
  if (!file) return { servers: [], secrets: [] };
  const where = path.resolve(sources.cwd, file);
  let value: unknown;
  try {
    value = JSON.parse(sources.readFile(where));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unreadable');
    throw new ConfigError(
      `HOLDFAST_MCP_CONFIG: cannot read ${file} as JSON (${reason}). ${mcpConfigHint}`,
      [],
      {
        cause: error,
      },
    );
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ConfigError(`HOLDFAST_MCP_CONFIG (${file}) is invalid:\n  ${issues.join('\n  ')}`, issues);
  }
  const secrets: ConfiguredSecret[] = [];
  const problems: string[] = [];
  /** `secretAs` names the value for the redactor when it came from a variable (a file's always is one). */
  const resolve = (text: string, at: string, secretAs?: string): string =>
    text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
      if (ownVariable.test(name)) {
        problems.push(`${at}: \${${name}} is holdfast's own setting; MCP servers never get it.`);
        return '';
      }
      const direct = sources.env[name];
      if (direct !== undefined) {
        if (secretAs) secrets.push({ name: secretAs, value: direct });
        return direct;
      }
      const fileName = sources.env[`${name}_FILE`]?.trim();
      if (fileName) {
        try {
          const content = sources.readFile(path.resolve(sources.cwd, fileName)).replace(/\r?\n$/, '');
          secrets.push({ name: `${name} (from ${name}_FILE)`, value: content });
          return content;
        } catch (error) {
          problems.push(
            `${at}: cannot read ${name}_FILE=${fileName} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}).`,
          );
          return '';
        }
      }
      problems.push(`${at}: \${${name}} is not set (set ${name} or ${name}_FILE).`);
      return '';
    });
  const servers = Object.entries(parsed.data.mcpServers).map(([name, entry]): McpServerConfig => {
    const shared = {
      name,
      optional: entry.optional,
      trustAnnotations: entry.trustAnnotations,
      timeoutMs: entry.timeoutMs,
    };
    if ('command' in entry) {
      const env = Object.fromEntries(
        Object.entries(entry.env).map(([key, text]) => {
          if (ownVariable.test(key))
            problems.push(
              `mcpServers.${name}.env.${key}: holdfast's own settings are never passed to MCP servers.`,
            );
          return [key, resolve(text, `mcpServers.${name}.env.${key}`)];
        }),
      );
      return {
        type: 'stdio',
        ...shared,
        command: entry.command,
        args: entry.args,
        env,
        ...(entry.cwd ? { cwd: path.resolve(sources.cwd, entry.cwd) } : {}),
      };
    }
    const headers = Object.fromEntries(
      Object.entries(entry.headers).map(([key, text]) => [
        key,
        resolve(text, `mcpServers.${name}.headers.${key}`, `mcpServers.${name}.headers.${key} header`),
      ]),
    );
    if (!entry.oauth) return { type: 'http', ...shared, url: entry.url, headers };
    const { clientId, clientSecret, refreshToken, scope, issuer } = entry.oauth;
    const at = `mcpServers.${name}.oauth`;
    const oauth: McpOAuthConfig = {
      clientId: resolve(clientId, `${at}.clientId`),
      ...(clientSecret
        ? { clientSecret: resolve(clientSecret, `${at}.clientSecret`, `${at}.clientSecret`) }
        : {}),
      ...(refreshToken
        ? { refreshToken: resolve(refreshToken, `${at}.refreshToken`, `${at}.refreshToken`) }
        : {}),
      ...(scope ? { scope } : {}),
      ...(issuer ? { issuer } : {}),
    };
    return { type: 'http', ...shared, url: entry.url, headers, oauth };
  });
  if (problems.length > 0)
    throw new ConfigError(`HOLDFAST_MCP_CONFIG (${file}):\n  ${problems.join('\n  ')}`, problems);
  return { servers, secrets };
}
