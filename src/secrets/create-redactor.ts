import { LRUCache } from 'lru-cache';
import { secretEncodings } from './secret-encodings.js';
import { SECRET_PATTERNS, type SecretPattern } from './secret-patterns.js';
import { stripInvisible } from './strip-invisible.js';

/** A value holdfast was configured with; `name` says what it is in the replacement text. */
export interface ConfiguredSecret {
  readonly name: string;
  readonly value: string;
}

export interface RedactorOptions {
  readonly secrets?: readonly ConfiguredSecret[];
  /** Shorter configured values are not searched for: they would redact ordinary words. */
  readonly minimumLength?: number;
}

export interface RedactOptions {
  /**
   * Never make the text longer: a replacement that would be longer than what it replaces is shortened
   * (`[redacted]`, `[secret]`, then asterisks). For payloads already cut to a size limit (Block Kit).
   */
  readonly compact?: boolean;
}

/** The redacting function itself, as the parts that use it receive it. */
export type Redact = (text: string, options?: RedactOptions) => string;

export interface Redactor {
  /** The text with every configured secret, in any common encoding, and every known credential shape
   * replaced by `[redacted <kind>]`. Idempotent; text with nothing to redact comes back unchanged. */
  readonly redact: Redact;
}

export const DEFAULT_MINIMUM_SECRET_LENGTH = 8;

interface Span {
  start: number;
  end: number;
  /** Lower wins when spans overlap: configured values first, then patterns in their order. */
  readonly rank: number;
  readonly kind: string;
}

interface ExactValues {
  readonly pattern: RegExp;
  readonly kinds: ReadonlyMap<string, string>;
}

/**
 * Builds the one redactor every exit of holdfast uses: tool results before they are stored or shown to
 * the model, everything posted to Slack, every log line.
 *
 * Matching runs on the text with invisible characters removed, so `xox\u200Bb-…` is still a token;
 * each match is then mapped back and replaced in the original text, so everything that is not a secret
 * keeps its exact characters.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const exact = exactValues(options.secrets ?? [], options.minimumLength ?? DEFAULT_MINIMUM_SECRET_LENGTH);
  // Log lines repeat the same short strings (messages, ids) thousands of times: each is scanned once.
  const short = new LRUCache<string, string>({ max: 4_096 });
  return {
    redact: (text, redactOptions) => {
      const compact = redactOptions?.compact ?? false;
      if (compact || text.length > shortText) return redactWith(text, exact, compact);
      let redacted = short.get(text);
      if (redacted === undefined) {
        redacted = redactWith(text, exact, false);
        short.set(text, redacted);
      }
      return redacted;
    },
  };
}

const shortText = 160;

/** Only the credential shapes, for text built where the configured values are not at hand. */
export function redactKnownPatterns(text: string, options?: RedactOptions): string {
  return redactWith(text, undefined, options?.compact ?? false);
}

function redactWith(original: string, exact: ExactValues | undefined, compact: boolean): string {
  if (original === '') return original;
  const visible = stripInvisible(original);
  const spans = findSpans(visible.text, exact);
  if (spans.length === 0) return original;
  const origin = visible.origin;
  let out = '';
  let from = 0;
  for (const span of mergeSpans(spans)) {
    const start = origin ? origin[span.start]! : span.start;
    const end = origin ? origin[span.end - 1]! + 1 : span.end;
    out += original.slice(from, start) + replacement(span.kind, end - start, compact);
    from = end;
  }
  return out + original.slice(from);
}

function findSpans(text: string, exact: ExactValues | undefined): Span[] {
  const spans: Span[] = [];
  if (exact) {
    for (const match of text.matchAll(exact.pattern)) {
      const kind = exact.kinds.get(match[0]) ?? 'secret';
      spans.push({ start: match.index, end: match.index + match[0].length, rank: 0, kind });
    }
  }
  const lower = text.toLowerCase();
  SECRET_PATTERNS.forEach((rule, index) => {
    if (!rule.keywords.some((keyword) => lower.includes(keyword))) return;
    for (const match of matches(rule, text)) spans.push({ ...match, rank: index + 1, kind: rule.kind });
  });
  return spans;
}

function* matches(rule: SecretPattern, text: string): Generator<{ start: number; end: number }> {
  for (const match of text.matchAll(rule.pattern)) {
    if (match[0] === '' || (rule.accept && !rule.accept(match))) continue;
    const group = match.indices?.groups?.secret;
    if (group) yield { start: group[0], end: group[1] };
    else yield { start: match.index, end: match.index + match[0].length };
  }
}

function replacement(kind: string, length: number, compact: boolean): string {
  const full = `[redacted ${kind}]`;
  if (!compact || full.length <= length) return full;
  return ['[redacted]', '[secret]'].find((label) => label.length <= length) ?? '*'.repeat(length);
}

/** Overlapping spans become one, named after the highest-ranked of them. */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start < last.end) {
      if (span.rank < last.rank) merged[merged.length - 1] = { ...span, start: last.start };
      merged.at(-1)!.end = Math.max(last.end, span.end);
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}

function exactValues(secrets: readonly ConfiguredSecret[], minimumLength: number): ExactValues | undefined {
  const kinds = new Map<string, string>();
  for (const secret of secrets) {
    const value = stripInvisible(secret.value.trim()).text;
    if (value.length < minimumLength) continue;
    for (const spelling of secretEncodings(value)) if (!kinds.has(spelling)) kinds.set(spelling, secret.name);
  }
  if (kinds.size === 0) return undefined;
  // Longest first, so a value that contains another is replaced whole.
  const alternatives = [...kinds.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return { pattern: new RegExp(alternatives.join('|'), 'g'), kinds };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
