import { escapeMrkdwn, neutraliseCodeFences, slackLinkLabel, slackUrl } from './escape-mrkdwn.js';

export interface MarkdownToMrkdwnOptions {
  /**
   * Keep `<!here>`, `<!channel>` and `<!everyone>` found in the input. Off by default: model output is
   * untrusted text, and one injected broadcast pages a whole channel.
   */
  readonly allowBroadcastMentions?: boolean;
  /**
   * When set, a mention that notifies someone (`<@U…>`, `<!subteam^S…>`, `<!here>` and the like) is kept
   * only if its id (`U…`, `S…`, `here`) is in the set; any other is shown as text and pings nobody. For
   * model output, which may repeat ids it read in a tool's output or was told to by a prompt injection.
   */
  readonly allowedPings?: ReadonlySet<string>;
}

const PING = /^<(?:@([UW][A-Z0-9]+)|!subteam\^([A-Z0-9]+)|!(here|channel|everyone))\b/;

// Private-use characters stand in for protected spans and for the emphasis we emit, so later rules never
// re-read our own output. Any found in the input are dropped first.
const HOLD_OPEN = '\uE000';
const HOLD_CLOSE = '\uE001';
const BOLD = '\uE002';
const ITALIC = '\uE003';
const RESERVED = /[\uE000-\uE003]/g;
const HELD = /\uE000(\d+)\uE001/g;
const ANY_HELD = /\uE000\d+\uE001/;

const SLACK_TOKEN =
  /<(?:@[UW][A-Z0-9]+(?:\|[^<>]*)?|#C[A-Z0-9]+(?:\|[^<>]*)?|!subteam\^[A-Z0-9]+(?:\|[^<>]*)?|!date\^\d+\^[^<>|]+(?:\^[^<>|]+)?(?:\|[^<>]*)?|!(?:here|channel|everyone)(?:\|[^<>]*)?|(?:https?|mailto):[^\s<>|]+(?:\|[^<>]*)?)>/g;
const BROADCAST = /^<!(?:here|channel|everyone)\b/;
const MD_LINK =
  /(!?)\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const BARE_URL = /\b(?:https?:\/\/|mailto:)[^\s<>]+/g;
const CODE_SPAN = /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;
const BACKSLASH_ESCAPE = /\\([\\`*_{}[\]()#+\-.!~|>])/g;

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BULLET = /^(\s*)[-*+][ \t]+(.*)$/;
const NUMBERED = /^(\s*)(\d{1,9})[.)][ \t]+(.*)$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;

function trimUrlPunctuation(url: string): { url: string; rest: string } {
  let end = url.length;
  while (end > 0) {
    const last = url[end - 1] ?? '';
    if ('.,;:!?\'"'.includes(last)) end -= 1;
    else if (
      last === ')' &&
      (url.slice(0, end).match(/\(/g)?.length ?? 0) < (url.slice(0, end).match(/\)/g)?.length ?? 0)
    )
      end -= 1;
    else break;
  }
  return { url: url.slice(0, end), rest: url.slice(end) };
}

function convertInline(input: string, options: MarkdownToMrkdwnOptions): string {
  const held: string[] = [];
  const hold = (mrkdwn: string): string => {
    held.push(mrkdwn);
    return `${HOLD_OPEN}${held.length - 1}${HOLD_CLOSE}`;
  };

  let text = input.replace(RESERVED, '');
  text = text.replace(CODE_SPAN, (_match, _ticks: string, body: string) =>
    hold(`\`${escapeMrkdwn(body.replace(/`/g, "'"))}\``),
  );
  text = text.replace(BACKSLASH_ESCAPE, (_match, char: string) => hold(escapeMrkdwn(char)));
  text = text.replace(SLACK_TOKEN, (token) => {
    if (BROADCAST.test(token) && options.allowBroadcastMentions !== true) return hold(escapeMrkdwn(token));
    const ping = PING.exec(token);
    const pinged = ping?.[1] ?? ping?.[2] ?? ping?.[3];
    if (pinged && options.allowedPings && !options.allowedPings.has(pinged)) return hold(escapeMrkdwn(token));
    return hold(token.replace(/&(?!amp;|lt;|gt;)/g, '&amp;'));
  });
  text = text.replace(MD_LINK, (_match, _image: string, label: string, url: string) => {
    const shown = slackLinkLabel(label.replace(/\*\*|__|`/g, '').trim());
    if (!/^(?:https?:|mailto:)/i.test(url))
      return hold(shown === '' ? escapeMrkdwn(url) : `${shown} (${escapeMrkdwn(url)})`);
    if (shown === '' || label === url) return hold(`<${slackUrl(url)}>`);
    return hold(`<${slackUrl(url)}|${shown}>`);
  });
  text = text.replace(BARE_URL, (match) => {
    const { url, rest } = trimUrlPunctuation(match);
    return hold(escapeMrkdwn(url)) + rest;
  });

  // Emphasis spans are bounded so a pathological line (thousands of unmatched `**`) stays linear.
  text = escapeMrkdwn(text)
    .replace(/\*\*\*(?=\S)(.{0,1000}?\S)\*\*\*/g, `${BOLD}${ITALIC}$1${ITALIC}${BOLD}`)
    .replace(/\*\*(?=\S)(.{0,1000}?\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![\p{L}\p{N}_])__(?=\S)(.{0,1000}?\S)__(?![\p{L}\p{N}_])/gu, `${BOLD}$1${BOLD}`)
    .replace(/~~(?=\S)(.{0,1000}?\S)~~/g, '~$1~')
    .replace(
      /(?<![\p{L}\p{N}*])\*(?=[^\s*])([^*]{0,1000}?[^\s*])\*(?![\p{L}\p{N}*])/gu,
      `${ITALIC}$1${ITALIC}`,
    )
    .replaceAll(BOLD, '*')
    .replaceAll(ITALIC, '_');
  // Held spans can nest (a code span inside a link label), so restore until none are left.
  while (ANY_HELD.test(text)) text = text.replace(HELD, (_match, index: string) => held[Number(index)] ?? '');
  return text;
}

function convertLine(line: string, options: MarkdownToMrkdwnOptions): string {
  const heading = HEADING.exec(line);
  if (heading) {
    const title = convertInline((heading[1] ?? '').replace(/\*\*|__/g, ''), options).trim();
    return title === '' ? '' : `*${title}*`;
  }
  if (RULE.test(line)) return '──────────';
  const quote = QUOTE.exec(line);
  if (quote) return `&gt; ${convertLine(quote[1] ?? '', options)}`;
  const bullet = BULLET.exec(line);
  if (bullet) {
    const item = (bullet[2] ?? '').replace(/^\[ \][ \t]+/, '☐ ').replace(/^\[[xX]\][ \t]+/, '☑ ');
    return `${bullet[1] ?? ''}• ${convertInline(item, options)}`;
  }
  const numbered = NUMBERED.exec(line);
  if (numbered)
    return `${numbered[1] ?? ''}${numbered[2] ?? ''}. ${convertInline(numbered[3] ?? '', options)}`;
  return convertInline(line, options);
}

interface OpenFence {
  readonly marker: string;
  readonly indent: number;
  readonly lines: string[];
}

function closesFence(line: string, fence: OpenFence): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  const marker = match?.[1];
  return marker !== undefined && marker[0] === fence.marker[0] && marker.length >= fence.marker.length;
}

function renderFence(fence: OpenFence): string {
  const body = fence.lines
    .map((line) => neutraliseCodeFences(escapeMrkdwn(line.replace(new RegExp(`^ {0,${fence.indent}}`), ''))))
    .join('\n');
  // Slack shows an info string (```ts) as the first code line, so the language is dropped.
  return `\`\`\`\n${body}\n\`\`\``;
}

/**
 * Converts the Markdown models usually write into Slack mrkdwn: emphasis, strike, links, headings, lists
 * and quotes are rewritten; code (fenced and inline) keeps its text; `&`, `<`, `>` are escaped everywhere
 * except in the Slack tokens kept from the input (`<@U…>`, `<#C…>`, `<!subteam^…>`, `<!date^…>`,
 * `<url|text>`) and the links produced here.
 */
export function markdownToMrkdwn(markdown: string, options: MarkdownToMrkdwnOptions = {}): string {
  const out: string[] = [];
  let fence: OpenFence | undefined;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (fence) {
      if (closesFence(line, fence)) {
        out.push(renderFence(fence));
        fence = undefined;
      } else {
        fence.lines.push(line);
      }
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    const marker = open?.[2];
    // A backtick fence whose info string holds a backtick is inline code on one line (```ls```).
    if (open && marker && !(marker.startsWith('`') && (open[3] ?? '').includes('`'))) {
      fence = { marker, indent: (open[1] ?? '').length, lines: [] };
      continue;
    }
    out.push(convertLine(line, options));
  }
  if (fence) out.push(renderFence(fence));
  return out.join('\n');
}
