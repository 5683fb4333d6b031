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
