/**
 * Slack's wire markup → what the model should read: `<@U123>` becomes `@alice`, channel links become
 * `#name`, links keep their text and URL. The bot's own mention is dropped from the start of the text.
 */
export async function renderMentions(
  text: string,
  options: { botUserId: string; userName: (userId: string) => Promise<string | undefined> },
): Promise<string> {
  const withoutBot = text.replace(new RegExp(`^\\s*<@${options.botUserId}(\\|[^>]*)?>[\\s,:]*`), '');
  const ids = new Set([...withoutBot.matchAll(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g)].map((match) => match[1]!));
  const names = new Map<string, string>();
  await Promise.all(
    [...ids].map(async (id) => {
      const name = id === options.botUserId ? 'holdfast' : await options.userName(id);
      names.set(id, name ?? id);
    }),
  );
  return withoutBot
    .replace(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g, (_all, id: string) => `@${names.get(id) ?? id}`)
    .replace(/<#[CGD][A-Z0-9]+\|([^>]+)>/g, '#$1')
    .replace(/<!subteam\^[A-Z0-9]+(?:\|([^>]+))?>/g, (_all, name?: string) =>
      name ? `@${name.replace(/^@/, '')}` : '@group',
    )
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}
