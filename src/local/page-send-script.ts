/**
 * How the local page tells a person what became of what they sent, as part of the page script's closure
 * (see page-script.ts; it uses the closure's `post`, `refresh`, `ui` and `signedOut`): a notice above the
 * panes, Slack's limit on a message's length, and clicks that could not reach holdfast, kept and sent
 * again. Plain ES5, like the rest of the page.
 */
export const pageSendScript = `
  // What went wrong with something the person did, where they will see it (the header's small status is
  // about the connection only). Cleared once it no longer holds.
  function notice(text, kind) {
    var box = $('notice');
    box.textContent = text || '';
    box.hidden = !text;
    box.className = 'notice' + (kind ? ' ' + kind : '');
  }
  // Slack refuses a message longer than this; so does the workspace, and the page says so first.
  var MESSAGE_LIMIT = 40000;
  function tooLong(text) {
    return 'Not sent: this message is ' + text.length.toLocaleString('en') + ' characters long, and Slack takes at most ' +
      MESSAGE_LIMIT.toLocaleString('en') + '. Shorten it and send it again.';
  }
  // Clicks that could not reach holdfast, kept in order and sent again when the connection is back. A
  // click sent twice is harmless: holdfast decides a request once and tells the second click so.
  var unsentClicks = [];
  function click(entry) {
    var body = { user: ui.viewer, action_id: entry.element.action_id, value: entry.element.value || '' };
    if (entry.target.block_id) body.block_id = entry.target.block_id;
    if (entry.target.channel) { body.channel = entry.target.channel; body.message_ts = entry.target.message_ts; }
    if (entry.target.ephemeral_id !== undefined) body.ephemeral_id = entry.target.ephemeral_id;
    body.label = entry.label;
    sendClick(body);
  }
  function sendClick(body) {
    var label = body.label;
    var payload = {};
    Object.keys(body).forEach(function (key) { if (key !== 'label') payload[key] = body[key]; });
    var keep = function () {
      if (signedOut) return;
      unsentClicks.push(body);
      document.body.dataset.unsentClicks = String(unsentClicks.length);
      notice('Your click on "' + label + '" has not reached holdfast: it cannot be reached right now. The click is kept and will be sent as soon as holdfast is back.', 'warn');
      if (!resendTimer) resendTimer = setTimeout(resendClicks, 2000);
    };
    post('/ui/click', payload).then(function (result) {
      if (result && result.error === 'holdfast_unreachable') return keep();
      if (result && result.ok === false) notice('Your click on "' + label + '" was refused by the workspace (' + (result.message || result.error) + '). Nothing changed.', 'error');
      else if (unsentClicks.length === 0) notice('');
      refresh();
    }, keep);
  }
  var resendTimer = null;
  function resendClicks() {
    if (resendTimer) { clearTimeout(resendTimer); resendTimer = null; }
    var waiting = unsentClicks;
    if (waiting.length === 0) return;
    unsentClicks = [];
    document.body.dataset.unsentClicks = '0';
    waiting.forEach(sendClick);
  }
`;
