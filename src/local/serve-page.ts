import type { IncomingMessage, ServerResponse } from 'node:http';
import { localPage } from './page.js';
import type { RequestGuard } from './request-guard.js';
import { reloadFromOwnOriginPage, signedOutPage } from './signed-out-page.js';

/**
 * `GET /`: the chat page, to the browser signed in. The printed URL's token is traded for the cookie
 * first; a request refused as cross-origin gets the page that reloads itself from its own origin (see
 * signed-out-page.ts); anyone else gets the signed-out page.
 */
export function servePage(
  request: IncomingMessage,
  response: ServerResponse,
  checks: RequestGuard,
  url: URL,
) {
  const token = url.searchParams.get('token');
  if (token !== null && checks.isSecret(token)) {
    // Trade the token for the cookie and drop it from the address bar (and from the history).
    url.searchParams.delete('token');
    response.writeHead(303, {
      location: `/${url.search}`,
      'set-cookie': checks.cookie,
      'cache-control': 'no-store',
    });
    response.end();
    return;
  }
  const verdict = token === null ? checks.browser(request) : undefined;
  if (verdict?.type === 'pass') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(localPage);
    return;
  }
  if (verdict?.type === 'refuse' && verdict.error === 'cross_origin') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(reloadFromOwnOriginPage);
    return;
  }
  response.writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(signedOutPage);
}
