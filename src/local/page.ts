import { pageModalScript } from './page-modal-script.js';
import { pageScript } from './page-script.js';
import { pageStreamScript } from './page-stream-script.js';
import { pageStyle } from './page-style.js';

/**
 * The local workspace's one page: a small Slack-like client (channels, threads, Block Kit cards, App Home)
 * that reads `/state`, listens on `/stream` and acts through `/ui/*`. Self-contained so it works offline.
 */
export const localPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>holdfast — local workspace</title>
<style>
${pageStyle}
</style>
</head>
<body>
<header>
  <span class="title">holdfast local workspace</span>
  <span class="model" id="model-label"></span>
  <span class="conn" id="connection">connecting…</span>
  <label>You are <select id="viewer"></select></label>
</header>
<div class="notice" id="notice" role="alert" hidden></div>
<div class="layout">
  <nav id="sidebar"></nav>
  <main id="main">
    <div class="pane-title" id="channel-title"></div>
    <div class="messages" id="channel-messages"></div>
    <div class="home" id="home" hidden></div>
    <form class="composer" id="channel-composer">
      <textarea id="channel-input" rows="1" placeholder="Message — mention @holdfast"></textarea>
      <button type="submit">Send</button>
    </form>
  </main>
  <aside id="thread" hidden>
    <div class="pane-title"><span>Thread</span><button type="button" id="close-thread">Close</button></div>
    <div class="messages" id="thread-messages"></div>
    <form class="composer" id="thread-composer">
      <textarea id="thread-input" rows="1" placeholder="Reply…"></textarea>
      <button type="submit">Reply</button>
    </form>
  </aside>
</div>
<dialog id="confirm">
  <h2 id="confirm-title"></h2>
  <div id="confirm-text"></div>
  <div class="buttons">
    <button type="button" class="bk" id="confirm-deny" data-confirm="deny"></button>
    <button type="button" class="bk primary" id="confirm-ok" data-confirm="confirm"></button>
  </div>
</dialog>
<dialog id="modal">
  <form id="modal-form">
    <h2 id="modal-title"></h2>
    <div id="modal-body"></div>
    <div class="buttons">
      <button type="button" class="bk" id="modal-close"></button>
      <button type="submit" class="bk primary" id="modal-submit"></button>
    </div>
  </form>
</dialog>
<script>
${pageScript}
${pageModalScript}
${pageStreamScript}
</script>
</body>
</html>
`;
