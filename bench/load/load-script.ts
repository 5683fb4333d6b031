/**
 * What the load benchmark's mentions say and how the fakes read them: mention n goes to thread
 * n % threads as that thread's mention number floor(n / threads), names itself in its text, and the
 * model's answer repeats the name, so an answer at the fake Slack says which mention it answers.
 */
export interface MentionId {
  readonly thread: number;
  readonly seq: number;
}

export function mentionText(id: MentionId, approval: boolean): string {
  return `load t${id.thread}-${id.seq}${approval ? ' approve' : ''}`;
}

/** The mention named in a user message (holdfast prefixes who said it), and whether it asks for the tool. */
export function parseMention(text: string): { marker: string; approval: boolean } | undefined {
  const match = /load (t\d+-\d+)( approve)?/.exec(text);
  return match?.[1] ? { marker: match[1], approval: match[2] !== undefined } : undefined;
}

export function answerFor(marker: string): string {
  return `done ${marker}`;
}

export function parseAnswer(text: string): MentionId | undefined {
  const match = /done t(\d+)-(\d+)/.exec(text);
  return match ? { thread: Number(match[1]), seq: Number(match[2]) } : undefined;
}

/** Milliseconds on a clock both processes share, for times compared across them. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The marker (`t<thread>-<seq>`) of a mention the bench tool was called for, in its approval card. */
export function parseCardMarker(text: string): string | undefined {
  return /noop (t\d+-\d+)/.exec(text)?.[1];
}

export function markerOf(id: MentionId): string {
  return `t${id.thread}-${id.seq}`;
}

/**
 * A figure in [min, max] drawn for `key` from `seed`, uniformly: the same key draws the same figure in
 * every run with that seed, whatever order the requests come in (FNV-1a, then a murmur-style mix).
 */
export function seededUniform(seed: number, key: string, min: number, max: number): number {
  let hash = (2166136261 ^ seed) >>> 0;
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 16777619);
  }
  hash = Math.imul(hash ^ (hash >>> 16), 2246822507);
  hash = Math.imul(hash ^ (hash >>> 13), 3266489909);
  hash ^= hash >>> 16;
  return min + ((hash >>> 0) / 4294967296) * (max - min);
}
