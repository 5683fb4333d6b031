/**
 * One kind of credential recognisable by its shape. When the pattern has a named group `secret`, only
 * that part is replaced (`postgres://app:[redacted password]@db`), so the reader still sees what it was.
 */
export interface SecretPattern {
  /** Named in the replacement: `[redacted <kind>]`. */
  readonly kind: string;
  /** Global; with the `d` flag when it has a `secret` group. */
  readonly pattern: RegExp;
  /**
   * Lowercase strings of which every accepted match holds at least one. The pattern runs only over text
   * that holds one: most text holds none, and a substring search costs far less than a regex scan.
   */
  readonly keywords: readonly string[];
  /** Rejects a match that has the shape but is not a credential (a `$VARIABLE`, a plain word). */
  readonly accept?: (match: RegExpExecArray) => boolean;
}

// Sources: the rules of secretlint's recommended preset (aws, gcp, privatekey, npm, basicauth, slack,
// sendgrid, shopify, github, openai, anthropic, linear, 1password, database-connection-string) and the
// matching well-known rules of gitleaks. Two constraints shape every expression:
// - they run over every tool result and every message (100 KB and more), so each one is linear: no
//   nested unbounded quantifiers, and free-form runs are bounded;
// - a token is found even when glued to the text before it (`TOKEN_xoxb-…`, or a word joined to it by a
//   removed zero-width space), so a distinctive prefix needs no boundary at all; only shapes that prose
//   could contain (`sk-…` in `task-…`, `AKIA…`) keep a look-behind on letters and digits, never `\b`.

const secretValue = (match: RegExpExecArray) => match.groups?.secret ?? match[0];

/** `$VAR`, `${VAR}`, `%VAR%`, `<password>`, `****`: placeholders, not values. */
const isPlaceholder = (value: string) =>
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|<[^>]*>|\{\{[^}]*\}\}|\*+|x+|\.{3}|…)$/i.test(value);

const notPlaceholder = (match: RegExpExecArray) => !isPlaceholder(secretValue(match));

/** A credential is not a plain short word: `Authorization: Bearer header` names no token. */
const notPlainWord = (match: RegExpExecArray) => {
  const value = secretValue(match);
  return !isPlaceholder(value) && !(value.length < 12 && /^[A-Za-z]+$/.test(value));
};

/** Variable names that hold secrets. Not `PWD` (the working directory) nor `SSH_AUTH_SOCK` (a path). */
const SECRET_NAME =
  /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PASS|API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|SIGNING_?KEY|ENCRYPTION_?KEY|MASTER_?KEY|CREDENTIALS?)(?:_|$)/i;

/** Names of where a secret is kept, not of the secret: `SLACK_SIGNING_SECRET_FILE`, `SSH_KEY_PATH`. */
const LOCATION_NAME = /_(?:FILE|PATH|DIR)$/i;

/** True for `GITHUB_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY` and the like. */
export function isSecretVariableName(name: string): boolean {
  return SECRET_NAME.test(name) && !LOCATION_NAME.test(name);
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    // PEM, OpenSSH and PGP private keys, whole or cut off before their END line (truncated output), and
    // with JSON-escaped newlines as in a service-account file. The body stops at the first `-----`, so a
    // missing END never makes the search run to the end of the text for each BEGIN. A cut-off key takes
    // the lines that look like key material (matched whole: the look-ahead and back-reference make the
    // run atomic), armour headers and blank lines, and stops at the first line of prose.
    kind: 'private key',
    keywords: ['private key'],
    pattern:
      /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:(?!-----)[\s\S]){0,20000}-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:(?:\r?\n|\\r?\\n)(?:(?=(?<line>[A-Za-z0-9+/=]{1,200}))\k<line>(?![ \t]+[A-Za-z0-9])|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset): [^\r\n\\]{0,200}|(?=\r?\n|\\r?\\n)))*)/g,
  },
  {
    kind: 'private key',
    keywords: ['"private_key"'],
    pattern: /"private_key"\s*:\s*"(?<secret>(?:[^"\\\r\n]|\\.){16,20000})"/dg,
  },
  {
    kind: 'jwt',
    keywords: ['.ey'],
    pattern: /ey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g,
  },
  {
    kind: 'slack webhook',
    keywords: ['hooks.slack'],
    pattern:
      /(?:https?:\/\/)?hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{8,}/g,
  },
  {
    // Bot, user, app, refresh, config, legacy, workspace, client (xoxc) and cookie (xoxd) tokens.
    kind: 'slack token',
    keywords: ['xox', 'xapp-'],
    pattern: /(?:xox[abposcdr]|xoxe(?:\.xox[bp])?|xapp)-[A-Za-z0-9%-]{8,}/g,
  },
  {
    kind: 'aws access key',
    keywords: ['a3t', 'akia', 'asia', 'abia', 'acca'],
    pattern: /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16,}/g,
  },
  {
    // `aws_secret_access_key = …`, `AWS_SECRET_ACCESS_KEY=…`, and STS JSON: `"SecretAccessKey": "…"`.
    kind: 'aws secret key',
    keywords: ['secret'],
    pattern:
      /(?<![A-Za-z0-9])(?:aws_?)?secret_?(?:access_?)?key["']?\s*(?:[:=]|=>)\s*["']?(?<secret>[A-Za-z0-9/+=]{20,})/dgi,
  },
  {
    kind: 'aws session token',
    keywords: ['token'],
    pattern:
      /(?<![A-Za-z0-9])(?:aws_?|x-amz-)?(?:session|security)[_-]?token["']?\s*(?:[:=]|=>)\s*["']?(?<secret>[A-Za-z0-9/+=%]{16,})/dgi,
  },
  {
    // Credentials in any URL: postgres, mysql, mongodb+srv, redis, amqp, https basic auth, …
    kind: 'password',
    keywords: ['://'],
    pattern:
      /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/?#@"'<>[\]]{0,200}:(?<secret>[^\s/?#@"'<>]{1,300})@/dg,
    accept: notPlaceholder,
  },
  {
    // Credentials in a query string or form body: `?password=…`, `&sig=…` (pre-signed URLs), `&token=…`.
    kind: 'credential',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'sig'],
    pattern:
      /[?&;](?:password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|id_token|api_?key|key|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=(?<secret>[^&\s#"'<>]{6,})/dgi,
    accept: notPlaceholder,
  },
  { kind: 'npm token', keywords: ['npm_'], pattern: /npm_[A-Za-z0-9]{36,}/g },
  {
    kind: 'npm token',
    keywords: ['_auth'],
    // `.npmrc`: `//registry.npmjs.org/:_authToken=…`, `_auth=…`; not `this._auth = …` in code.
    pattern: /(?<![^\s:/])_auth(?:Token)?\s*=\s*["']?(?<secret>[^\s"']{8,})/dg,
    accept: notPlaceholder,
  },
  {
    kind: 'stripe key',
    keywords: ['sk_', 'rk_', 'whsec_'],
    pattern: /(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{24,})/g,
  },
  { kind: 'gcp api key', keywords: ['aiza'], pattern: /AIza[0-9A-Za-z_-]{35,}/g },
  { kind: 'gcp client secret', keywords: ['gocspx-'], pattern: /GOCSPX-[A-Za-z0-9_-]{28}/g },
  { kind: 'gcp access token', keywords: ['ya29.'], pattern: /ya29\.[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'github token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    pattern: /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}/g,
  },
  { kind: 'github token', keywords: ['github_pat_'], pattern: /github_pat_[A-Za-z0-9_]{22,255}/g },
  { kind: 'gitlab token', keywords: ['glpat-'], pattern: /glpat-[A-Za-z0-9_-]{20,}/g },
  // Before the OpenAI rule: both match `sk-ant-…`, and the first rule names the kind.
  { kind: 'anthropic key', keywords: ['sk-ant-'], pattern: /sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'openai key',
    keywords: ['sk-'],
    pattern: /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g,
  },
  { kind: 'sendgrid key', keywords: ['sg.'], pattern: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g },
  {
    kind: 'shopify token',
    keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    pattern: /shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g,
  },
  { kind: 'linear key', keywords: ['lin_api_'], pattern: /lin_api_[A-Za-z0-9]{40}/g },
  { kind: '1password token', keywords: ['ops_eyj'], pattern: /ops_eyJ[A-Za-z0-9+/=_-]{40,}/g },
  {
    kind: 'credential',
    keywords: ['authorization'],
    pattern:
      /(?<![A-Za-z0-9-])(?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest|Bot)[ \t]+)?(?<secret>[A-Za-z0-9\-._~+/]{4,}=*)/dgi,
    accept: notPlainWord,
  },
  {
    kind: 'credential',
    keywords: ['api-key', 'auth-token', 'access-token', 'private-token'],
    pattern:
      /(?<![A-Za-z0-9-])(?:x-api-key|api-key|x-auth-token|x-access-token|private-token)["']?\s*[:=]\s*["']?(?<secret>[^\s"',;]{8,})/dgi,
    accept: notPlainWord,
  },
  {
    // Outside a header, demand a digit so prose such as "Bearer authentication" is left alone.
    kind: 'credential',
    keywords: ['bearer'],
    pattern:
      /(?<![A-Za-z0-9])Bearer[ \t]+(?<secret>(?=[A-Za-z0-9\-._~+/]{0,200}\d)[A-Za-z0-9\-._~+/]{12,}=*)/dg,
  },
  {
    // `SOME_TOKEN=…` as `env`, `/proc/<pid>/environ` (NUL-separated) and `.env` files print it.
    kind: 'secret',
    keywords: ['token', 'secret', 'pass', 'key', 'credential'],
    pattern: /(?<![A-Za-z0-9_])(?<name>[A-Z][A-Z0-9_]{0,80})=["']?(?<secret>[^\s\0"']{8,})/dg,
    accept: (match) => isSecretVariableName(match.groups?.name ?? '') && notPlaceholder(match),
  },
  {
    // `"password": "…"`, `client_secret: '…'`: quoted values only, so code (`password: z.string()`) stays.
    kind: 'secret',
    keywords: ['pass', 'secret', 'token', 'key'],
    pattern:
      /(?<![A-Za-z0-9_])["']?(?:[A-Za-z0-9]{1,40}[_-]){0,4}(?:password|passwd|passphrase|secret|token|api_?key|private_?key)["']?\s*[:=]\s*["'](?<secret>[^"'\s]{8,})["']/dgi,
    accept: notPlaceholder,
  },
];
