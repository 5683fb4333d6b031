/**
 * A person's name as people know it (Slack's display name), from whoever can look it up; undefined when
 * nobody can. The front end resolves it once and caches it.
 */
export type NameOf = (userId: string) => Promise<string | undefined>;

/**
 * The name to write in a sentence about `userId`: their name, or `fallback` when it cannot be found. Never
 * the id: the sentence may be passed on to people, who read names.
 */
export async function nameFor(nameOf: NameOf | undefined, userId: string | undefined, fallback: string) {
  if (!nameOf || !userId) return fallback;
  const name = await nameOf(userId).catch(() => undefined);
  return name?.trim() ? name.trim() : fallback;
}
