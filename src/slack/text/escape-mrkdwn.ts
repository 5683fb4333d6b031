/**
 * Slack decodes exactly these three entities in mrkdwn (and in code, where they still render literally).
 * Encoding anything else would show up as `&#39;` and friends, so only these are touched.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Stops text placed inside a ``` fence from closing it early: a zero-width space between consecutive
 * backticks keeps the text readable while Slack no longer sees a fence.
 */
export function neutraliseCodeFences(text: string): string {
  return text.replace(/`(?=`)/g, '`\u200B');
}

/** Inline code cannot hold a backtick at all in mrkdwn; a look-alike quote keeps the span intact. */
export function inlineCodeSafe(text: string): string {
  return text.replace(/`/g, "'");
}

const USER_ID = /^[UW][A-Z0-9]+$/;
const GROUP_ID = /^S[A-Z0-9]+$/;

/** `<@U…>` for a Slack user id; anything that is not an id is shown as escaped text, never as markup. */
export function mentionUser(userId: string): string {
  return USER_ID.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/** `<!subteam^S…>` for a user group id, so its members are notified; other strings are shown escaped. */
export function mentionGroup(groupId: string): string {
  return GROUP_ID.test(groupId) ? `<!subteam^${groupId}>` : escapeMrkdwn(groupId);
}

/** A URL for `<url|label>`: `&` escaped, and `<`, `>`, `|` percent-encoded so the token stays whole. */
export function slackUrl(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
}

/** A label for `<url|label>`: escaped, with `|` swapped for a look-alike so it cannot end the URL part. */
export function slackLinkLabel(text: string): string {
  return escapeMrkdwn(text).replace(/\|/g, '¦');
}
