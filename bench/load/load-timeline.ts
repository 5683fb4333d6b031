/**
 * When each mention's request reached each step, as the fakes see it (`epochMs`): the model's tool call
 * and final answer, its card, the Allow click, the tool's start, its answer in the thread. The first time
 * wins; repeats are counted where a repeat is a fault (a second card, an answer in a second message).
 */
export const timelineSteps = ['toolCall', 'modelAnswer', 'card', 'click', 'toolStart', 'answer'] as const;
export type TimelineStep = (typeof timelineSteps)[number];

export type MentionTimeline = Partial<Record<TimelineStep, number>> & {
  /** Answers to this mention in a message other than the first one. */
  doubledAnswers?: number;
  /** Cards in its thread after the first. */
  doubledCards?: number;
  /** Answers posted while a live preview in the thread was still streaming. */
  besideOpenPreview?: number;
};

export interface Timeline {
  mark(marker: string, step: TimelineStep, at: number): void;
  count(marker: string, what: 'doubledAnswers' | 'doubledCards' | 'besideOpenPreview'): void;
  get(marker: string): MentionTimeline | undefined;
  all(): Record<string, MentionTimeline>;
}

export function createTimeline(): Timeline {
  const entries = new Map<string, MentionTimeline>();
  const entry = (marker: string) => {
    let found = entries.get(marker);
    if (!found) {
      found = {};
      entries.set(marker, found);
    }
    return found;
  };
  return {
    mark(marker, step, at) {
      const found = entry(marker);
      if (found[step] === undefined) found[step] = at;
    },
    count(marker, what) {
      const found = entry(marker);
      found[what] = (found[what] ?? 0) + 1;
    },
    get: (marker) => entries.get(marker),
    all: () => Object.fromEntries(entries),
  };
}
