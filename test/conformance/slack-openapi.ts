import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/** Slack's OpenAPI description of the Web API, read in place beside the project, never copied into it. */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');
export const specFile = path.resolve(
  projectRoot,
  '..',
  'shared',
  'fixtures',
  'slack_api_spec',
  'slack_web_openapi_v2.json',
);

interface SpecSchema {
  readonly type?: string;
  readonly $ref?: string;
  readonly required?: readonly string[];
  readonly properties?: Record<string, SpecSchema>;
  readonly enum?: readonly string[];
}

interface Spec {
  readonly paths: Record<string, Record<string, { responses: Record<string, { schema: SpecSchema }> }>>;
  readonly definitions: Record<string, SpecSchema>;
}

export interface SpecChecks {
  /** Every field the method's success (`'200'`) or error (`'default'`) schema requires, with its type. */
  expectConforms(method: string, response: object, outcome?: '200' | 'default'): void;
  /** The error is one the spec lists for the method. */
  expectListedError(method: string, error: unknown): void;
}

export function specIsPresent(): boolean {
  return existsSync(specFile);
}

/** Loose checks: required fields, declared types and enums; extra fields are fine, as they are in Slack. */
export function loadSpecChecks(): SpecChecks {
  if (!specIsPresent()) {
    throw new Error(
      `Slack's OpenAPI spec is missing beside the project: ${path.relative(projectRoot, specFile)}`,
    );
  }
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as Spec;
  const responses = (method: string) => {
    const entry = spec.paths[`/${method}`];
    const first = entry ? Object.values(entry)[0] : undefined;
    if (!first) throw new Error(`the spec has no ${method}`);
    return first.responses;
  };
  const resolve = (schema: SpecSchema): SpecSchema =>
    schema.$ref ? resolve(spec.definitions[schema.$ref.replace('#/definitions/', '')] ?? {}) : schema;
  const jsType = (specType: string) => (specType === 'integer' ? 'number' : specType);

  return {
    expectConforms(method, response, outcome = '200') {
      const schema = resolve(responses(method)[outcome]?.schema ?? {});
      for (const name of schema.required ?? [])
        expect(response, `${method}: required ${name}`).toHaveProperty(name);
      for (const [name, value] of Object.entries(response)) {
        const property = schema.properties?.[name];
        if (!property) continue;
        const resolved = resolve(property);
        if (resolved.type === 'array') expect(Array.isArray(value), `${method}: ${name}`).toBe(true);
        else if (resolved.type) expect(typeof value, `${method}: ${name}`).toBe(jsType(resolved.type));
        if (resolved.enum) expect(resolved.enum, `${method}: ${name}`).toContain(value);
      }
    },
    expectListedError(method, error) {
      const schema = resolve(responses(method).default?.schema ?? {});
      const listed = resolve(schema.properties?.error ?? {}).enum;
      expect(listed, `${method} lists its errors`).toBeDefined();
      expect(listed, `${method}: error ${String(error)}`).toContain(error);
    },
  };
}
