/**
 * What a browser sees at the page without the secret: a first visit without the printed URL, a tab
 * whose cookie no longer matches (the secret file was deleted), or a token that is wrong.
 */
export const signedOutPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>holdfast — not signed in</title>
<style>
body { font: 15px/1.5 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1d1c1d; }
.signed-out { max-width: 36rem; margin: 4rem auto; padding: 0 1rem; }
</style>
</head>
<body>
<div class="signed-out">
  <h1>Not signed in</h1>
  <p>This browser is not signed in to the holdfast local workspace. Open the URL that
  <code>npm start</code> printed in its terminal (<code>http://localhost:…/?token=…</code>); it signs
  this browser in.</p>
  <p>The token keeps other web pages from posting or approving as you: the workspace runs shell commands
  on this machine.</p>
</div>
</body>
</html>
`;

/**
 * The answer to a link followed from another site: SameSite=Strict keeps the cookie off that request
 * (and off the redirect after the token exchange), so the page loads itself again from its own origin,
 * where the cookie does go along. It holds nothing, and a second refusal shows the signed-out page.
 */
export const reloadFromOwnOriginPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>holdfast</title></head>
<body>
<script>location.replace(location.href);</script>
<noscript>Open the URL holdfast printed in its terminal.</noscript>
</body>
</html>
`;
