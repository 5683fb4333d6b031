/** Below this, an encoded fragment could turn up in ordinary text by chance. */
const MIN_ENCODED_LENGTH = 12;

/**
 * The spellings a secret's value takes on its way out: as is, escaped in JSON and in Slack mrkdwn,
 * URL-encoded, hex, base64 and base64url. Everything returned is a literal to search for.
 *
 * Base64 of a secret embedded in a longer value (`Basic base64(user:secret)`, a kubeconfig, a
 * JSON blob) depends on where the secret falls in its 3-byte groups. For each of the three alignments
 * the characters that encode only the secret's own bytes are the same whatever surrounds it, so those
 * middles are searched for; at most three characters either side stay, and they hold under two bytes.
 */
export function secretEncodings(value: string): string[] {
  const spellings = new Set<string>([value]);
  const json = JSON.stringify(value).slice(1, -1);
  spellings.add(json);
  const mrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  spellings.add(mrkdwn(value));
  spellings.add(mrkdwn(json));
  const url = encodeURIComponent(value);
  spellings.add(url);
  spellings.add(url.replace(/%20/g, '+'));
  spellings.add(encodeURI(value));

  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  spellings.add(hex);
  spellings.add(hex.toUpperCase());
  for (const middle of base64Middles(bytes)) {
    if (middle.length < MIN_ENCODED_LENGTH) continue;
    spellings.add(middle);
    spellings.add(middle.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...spellings].filter((spelling) => spelling.length > 0);
}

function base64Middles(bytes: Buffer): string[] {
  const middles: string[] = [];
  for (let lead = 0; lead < 3; lead += 1) {
    const padded = Buffer.concat([Buffer.alloc(lead), bytes]);
    const encoded = padded.toString('base64');
    // Groups that start inside the lead bytes, or end past the secret, depend on the neighbours.
    const firstGroup = lead === 0 ? 0 : 1;
    const lastGroup = Math.floor(padded.length / 3);
    if (lastGroup > firstGroup) middles.push(encoded.slice(firstGroup * 4, lastGroup * 4));
  }
  return middles;
}
