import { readFileSync } from 'node:fs';
import { isNode, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { type Policy, policySchema } from './policy.js';
import { findUnknownPolicyNames, type PolicyVocabulary } from './policy-names.js';

/**
 * Reads `HOLDFAST_POLICY`. Every problem names the file and the line, so start-up fails usefully. With a
 * vocabulary (the tools loaded, plugins included), a name that matches no tool or permission type is a
 * problem too: a misspelt rule would otherwise never apply, silently.
 */
export function loadPolicyFile(file: string, vocabulary?: PolicyVocabulary): Policy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `HOLDFAST_POLICY points at ${file}, which cannot be read: ${(error as Error).message}`,
      [],
      { cause: error },
    );
  }
  return parsePolicy(text, file, vocabulary);
}

export function parsePolicy(text: string, file: string, vocabulary?: PolicyVocabulary): Policy {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const issues = document.errors.map((error) => {
      const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
      return `${file}:${line}: ${error.message.split('\n')[0]}`;
    });
    throw new ConfigError(`The policy file is not valid YAML:\n  ${issues.join('\n  ')}`, issues);
  }
  const result = policySchema.safeParse(document.toJS() ?? {});
  if (!result.success) {
    const issues = result.error.issues.map((issue) => describeIssue(issue, document, lineCounter, file));
    throw new ConfigError(`The policy file is invalid:\n  ${issues.join('\n  ')}`, issues);
  }
  if (!vocabulary) return result.data;
  const unknown = findUnknownPolicyNames(result.data, vocabulary).map((issue) => {
    const line =
      (issue.isKey ? keyLine(document, lineCounter, issue.path) : undefined) ??
      lineOf(document, lineCounter, issue.path) ??
      1;
    return `${file}:${line}: ${issue.path.join('.')}: ${issue.message}`;
  });
  if (unknown.length > 0) {
    throw new ConfigError(`The policy file names what does not exist:\n  ${unknown.join('\n  ')}`, unknown);
  }
  return result.data;
}

/** The line of a map key itself (its value may start on the next line). */
function keyLine(
  document: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  path: readonly (string | number)[],
): number | undefined {
  const parentPath = path.slice(0, -1);
  const parent = parentPath.length === 0 ? document.contents : document.getIn(parentPath, true);
  const offset = findPair(parent, path.at(-1));
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  document: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  file: string,
): string {
  const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
  const where = path.length > 0 ? path.join('.') : '(top level)';
  // An unknown key has no node of its own in the path; point at its parent's line and name the key.
  const nodePath = issue.code === 'unrecognized_keys' ? [...path, issue.keys[0] ?? ''] : path;
  const line = lineOf(document, lineCounter, nodePath) ?? lineOf(document, lineCounter, path) ?? 1;
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      : issue.message;
  return `${file}:${line}: ${where}: ${message}`;
}

function lineOf(
  document: ReturnType<typeof parseDocument>,
  lineCounter: LineCounter,
  path: readonly (string | number)[],
): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const prefix = path.slice(0, depth);
    const node = prefix.length === 0 ? document.contents : document.getIn(prefix, true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    if (depth > 0) {
      // A key whose value is missing: find the key node itself in its parent map.
      const parent = depth === 1 ? document.contents : document.getIn(path.slice(0, depth - 1), true);
      const pair = findPair(parent, path[depth - 1]);
      if (pair) return lineCounter.linePos(pair).line;
    }
  }
  return undefined;
}

function findPair(parent: unknown, key: string | number | undefined): number | undefined {
  if (!parent || typeof parent !== 'object' || !('items' in parent)) return undefined;
  const items = (parent as { items: unknown[] }).items;
  for (const item of items) {
    if (item && typeof item === 'object' && 'key' in item) {
      const keyNode = (item as { key: unknown }).key;
      if (isNode(keyNode) && keyNode.toJSON() === key && keyNode.range) return keyNode.range[0];
    }
  }
  return undefined;
}
