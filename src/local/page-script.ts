import { pageBlocksScript } from './page-blocks-script.js';
import { pageSendScript } from './page-send-script.js';

/**
 * The local page's client: renders `/state` (messages, Block Kit, mrkdwn, ephemerals, App Home), follows
 * `/stream`, and sends what the person does to `/ui/*`. Plain ES5 in one closure, so it needs no build.
 * How it draws Slack content (mrkdwn, Block Kit) is in page-blocks-script.ts, and how what the person
 * sends is refused, kept or sent again in page-send-script.ts, both parts of the same closure.
 */
export const pageScript = String.raw`
(function () {
  var params = new URLSearchParams(location.search);
  var ui = {
    viewer: params.get('as') || localStorage.getItem('holdfast.viewer') || 'U0ALICE',
    channel: localStorage.getItem('holdfast.channel') || 'C0OPS',
    thread: JSON.parse(localStorage.getItem('holdfast.thread') || 'null'),
    home: false
  };
  var state = null;
  var $ = function (id) { return document.getElementById(id); };
${pageBlocksScript}
  function when(ts) {
    var date = new Date(Number(ts) * 1000);
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  }
  function reactionsFor(message) {
    var list = state.reactions.filter(function (reaction) { return reaction.channel === message.channel && reaction.ts === message.ts; });
    if (list.length === 0) return '';
    return '<div class="reactions">' + list.map(function (reaction) {
      return '<span class="reaction" data-reaction="' + escapeHtml(reaction.name) + '" title=":' + escapeHtml(reaction.name) + ':">' + escapeHtml(emoji(reaction.name)) + '</span>';
    }).join('') + '</div>';
  }
  function renderMessage(message, options) {
    var target = { channel: message.channel, message_ts: message.ts };
    var body = message.stream && window.holdfastStream ? window.holdfastStream.render(message, target)
      : message.blocks.length > 0 ? renderBlocks(message.blocks, target) : '<div>' + mrkdwn(message.text) + '</div>';
    var replies = '';
    if (options.replyCount > 0) replies = '<button type="button" class="replies" data-open-thread="' + message.ts + '">' + options.replyCount + (options.replyCount === 1 ? ' reply' : ' replies') + '</button>';
    else if (options.canReply) replies = '<button type="button" class="replies" data-open-thread="' + message.ts + '">Reply in thread</button>';
    return '<div class="message" data-ts="' + message.ts + '" data-user="' + message.user + '"><div><span class="who">' + escapeHtml(userName(message.user)) +
      '</span><span class="when">' + when(message.ts) + '</span>' + (message.edited ? ' <span class="edited">(edited)</span>' : '') + '</div>' +
      body + reactionsFor(message) + replies + '</div>';
  }
  function renderEphemeral(ephemeral) {
    var target = { channel: ephemeral.channel, message_ts: ephemeral.ts, ephemeral_id: ephemeral.id };
    var body = ephemeral.blocks.length > 0 ? renderBlocks(ephemeral.blocks, target) : '<div>' + mrkdwn(ephemeral.text) + '</div>';
    return '<div class="message ephemeral" data-ts="' + ephemeral.ts + '" data-ephemeral="' + ephemeral.id + '"><div><span class="who">' + escapeHtml(state.bot.name) +
      '</span><span class="when">' + when(ephemeral.ts) + '</span> <span class="only-you">Only visible to you</span></div>' + body + '</div>';
  }
  function byTs(a, b) { return a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0; }

  function render() {
    if (!state) return;
    localStorage.setItem('holdfast.thread', JSON.stringify(ui.thread));
    pendingConfirms = [];
    $('model-label').textContent = state.modelLabel;
    var viewerSelect = $('viewer');
    if (viewerSelect.options.length === 0) {
      state.users.forEach(function (user) {
        var option = document.createElement('option');
        option.value = user.id;
        option.textContent = user.name + ' (' + user.role + ')';
        viewerSelect.appendChild(option);
      });
    }
    viewerSelect.value = ui.viewer;
    var channelIds = state.channels.map(function (channel) { return channel.id; });
    if (channelIds.indexOf(ui.channel) < 0) ui.channel = 'C0OPS';
    var nav = '<h3>Channels</h3>';
    state.channels.forEach(function (channel) {
      if (channel.type !== 'channel') return;
      nav += '<a data-channel="' + channel.id + '" class="' + (!ui.home && ui.channel === channel.id ? 'active' : '') + '"># ' + escapeHtml(channel.name) + '</a>';
    });
    nav += '<h3>Direct messages</h3>';
    state.channels.forEach(function (channel) {
      if (channel.type !== 'im') return;
      nav += '<a data-channel="' + channel.id + '" class="' + (!ui.home && ui.channel === channel.id ? 'active' : '') + '">holdfast (DM)</a>';
    });
    nav += '<h3>App</h3><a data-home="1" class="' + (ui.home ? 'active' : '') + '">holdfast Home</a>';
    nav += '<h3>Status on your message</h3><ul class="legend">' + (state.legend || []).map(function (entry) {
      return '<li data-legend="' + escapeHtml(entry.status) + '">' + escapeHtml(emoji(entry.reaction)) + ' ' + escapeHtml(entry.label) + '</li>';
    }).join('') + '</ul>';
    $('sidebar').innerHTML = nav;

    var channel = state.channels.filter(function (candidate) { return candidate.id === ui.channel; })[0];
    $('channel-title').textContent = ui.home ? 'holdfast — Home' : channel.type === 'im' ? 'holdfast (direct message)' : '# ' + channel.name;
    $('channel-messages').hidden = ui.home;
    $('channel-composer').hidden = ui.home;
    $('home').hidden = !ui.home;
    if (ui.home) {
      $('home').innerHTML = state.home && state.home.blocks ? renderBlocks(state.home.blocks, {}) : '<div class="empty">Nothing published yet.</div>';
    } else {
      var inChannel = state.messages.filter(function (message) { return message.channel === ui.channel; });
      var roots = inChannel.filter(function (message) { return !message.threadTs || message.threadTs === message.ts; });
      var items = roots.map(function (message) {
        var count = inChannel.filter(function (reply) { return reply.threadTs === message.ts && reply.ts !== message.ts; }).length;
        return { ts: message.ts, html: renderMessage(message, { replyCount: count, canReply: channel.type === 'channel' }) };
      });
      state.ephemerals.forEach(function (ephemeral) {
        if (ephemeral.channel === ui.channel && !ephemeral.threadTs) items.push({ ts: ephemeral.ts, html: renderEphemeral(ephemeral) });
      });
      items.sort(byTs);
      var list = $('channel-messages');
      var atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
      list.innerHTML = items.length ? items.map(function (item) { return item.html; }).join('') : '<div class="empty">No messages yet. Say hello to @holdfast.</div>';
      if (atBottom) list.scrollTop = list.scrollHeight;
    }
    renderThread();
    if (window.holdfastModal) window.holdfastModal.render(state);
  }
  function renderThread() {
    var pane = $('thread');
    var root = ui.thread && state.messages.filter(function (message) { return message.channel === ui.thread.channel && message.ts === ui.thread.ts; })[0];
    pane.hidden = !root || ui.home;
    document.body.classList.toggle('thread-open', !pane.hidden);
    if (pane.hidden) return;
    var items = state.messages.filter(function (message) {
      return message.channel === root.channel && message.threadTs === root.ts && message.ts !== root.ts;
    }).map(function (message) { return { ts: message.ts, html: renderMessage(message, {}) }; });
    state.ephemerals.forEach(function (ephemeral) {
      if (ephemeral.channel === root.channel && ephemeral.threadTs === root.ts) items.push({ ts: ephemeral.ts, html: renderEphemeral(ephemeral) });
    });
    items.sort(byTs);
    var list = $('thread-messages');
    var atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.innerHTML = renderMessage(root, {}) + '<hr class="divider">' + items.map(function (item) { return item.html; }).join('');
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  var refreshing = null;
  function refresh() {
    if (refreshing) { refreshing.again = true; return refreshing.promise; }
    var current = { again: false };
    var asked = ui.viewer;
    current.promise = fetch('/state?as=' + encodeURIComponent(asked), { cache: 'no-store' })
      .then(answered)
      .then(function (snapshot) {
        // Someone else's view, asked for before the viewer changed: never shown under the new name.
        if (asked !== ui.viewer) { current.again = true; return; }
        state = snapshot;
        render();
        document.body.dataset.renderedFor = asked;
      })
      .catch(function () {})
      .then(function () { refreshing = null; if (current.again) refresh(); });
    refreshing = current;
    return current.promise;
  }
  // The server refuses a tab whose cookie no longer matches its secret; say so instead of retrying.
  var signedOut = false;
  function answered(response) {
    if (response.status === 403) {
      signedOut = true;
      $('connection').textContent = 'not signed in: open the URL holdfast printed in its terminal';
      throw new Error('not signed in');
    }
    return response.json();
  }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(answered);
  }
${pageSendScript}
  // As Slack's own client sends it: &, < and > escaped, so what was typed reaches holdfast as typed.
  function outgoing(text) {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      .replace(/@holdfast\b/g, '<@' + (state ? state.bot.userId : 'U0HOLDFAST') + '>');
  }
  function send(input, threadTs) {
    var typed = input.value;
    var text = typed.trim();
    if (!text) return;
    var body = { user: ui.viewer, channel: threadTs ? ui.thread.channel : ui.channel, text: outgoing(text) };
    if (body.text.length > MESSAGE_LIMIT) { notice(tooLong(body.text), 'error'); return; }
    input.value = '';
    if (threadTs) body.thread_ts = threadTs;
    // A message that did not get through goes back in the box, with the reason above it.
    var giveBack = function (reason) {
      if (!input.value) input.value = typed;
      notice(reason, 'error');
    };
    post('/ui/message', body).then(function (result) {
      if (!result || result.ok === false) {
        giveBack(result && result.message ? result.message : 'Not sent: the workspace refused this message.');
        return;
      }
      notice(result.delivered === false
        ? 'Posted, but holdfast did not receive it: it is stopped or still starting. Send it again once holdfast is back.'
        : '', 'warn');
      if (!threadTs && result.ts && body.channel.charAt(0) === 'C' && body.text.indexOf('<@') >= 0) {
        ui.thread = { channel: body.channel, ts: result.ts };
      }
      refresh();
    }, function () {
      if (!signedOut) giveBack('Not sent: holdfast cannot be reached. Your message is back in the box; send it again once the page says "live".');
    });
  }
  function bindComposer(formId, inputId, threadTs) {
    var form = $(formId);
    var input = $(inputId);
    form.addEventListener('submit', function (event) { event.preventDefault(); send(input, threadTs()); });
    input.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(input, threadTs()); }
    });
  }
  bindComposer('channel-composer', 'channel-input', function () { return undefined; });
  bindComposer('thread-composer', 'thread-input', function () { return ui.thread ? ui.thread.ts : undefined; });

  var confirming = null;
  document.addEventListener('click', function (event) {
    var target = event.target.closest ? event.target : event.target.parentElement;
    var channelLink = target.closest('[data-channel]');
    if (channelLink) { ui.channel = channelLink.getAttribute('data-channel'); ui.home = false; ui.thread = null; localStorage.setItem('holdfast.channel', ui.channel); render(); return; }
    if (target.closest('[data-home]')) { ui.home = true; ui.thread = null; render(); post('/ui/home', { user: ui.viewer }).then(refresh); return; }
    var opener = target.closest('[data-open-thread]');
    if (opener) { ui.thread = { channel: ui.channel, ts: opener.getAttribute('data-open-thread') }; render(); return; }
    var bk = target.closest('button[data-button]');
    if (bk) {
      var entry = pendingConfirms[Number(bk.getAttribute('data-button'))];
      if (!entry) return;
      var confirm = entry.element.confirm;
      entry.label = bk.textContent;
      if (!confirm) { bk.disabled = true; click(entry); return; }
      confirming = entry;
      $('confirm-title').innerHTML = textObject(confirm.title);
      $('confirm-text').innerHTML = textObject(confirm.text);
      $('confirm-ok').innerHTML = textObject(confirm.confirm || { type: 'plain_text', text: 'Yes' });
      $('confirm-deny').innerHTML = textObject(confirm.deny || { type: 'plain_text', text: 'Cancel' });
      $('confirm-ok').className = 'bk ' + (confirm.style === 'danger' ? 'danger' : 'primary');
      $('confirm').showModal();
    }
  });
  $('confirm-ok').addEventListener('click', function () { $('confirm').close(); if (confirming) click(confirming); confirming = null; });
  $('confirm-deny').addEventListener('click', function () { $('confirm').close(); confirming = null; });
  $('close-thread').addEventListener('click', function () { ui.thread = null; render(); });
  $('viewer').addEventListener('change', function (event) {
    ui.viewer = event.target.value;
    localStorage.setItem('holdfast.viewer', ui.viewer);
    if (ui.home) post('/ui/home', { user: ui.viewer });
    refresh();
  });

  function connect() {
    var source = new EventSource('/stream');
    source.addEventListener('open', function () { $('connection').textContent = 'live'; resendClicks(); refresh(); });
    source.addEventListener('change', function () { refresh(); });
    source.addEventListener('error', function () {
      if (signedOut) { source.close(); return; }
      $('connection').textContent = 'reconnecting…';
      // EventSource gives up for good when the server answers with an error page (a refusal among
      // them: refresh() tells that apart); start a fresh one.
      if (source.readyState === EventSource.CLOSED) { refresh(); setTimeout(connect, 1000); }
    });
  }
  // The modal script (page-modal-script) draws modals with the same renderers and posts the same way.
  window.holdfastPage = {
    renderBlocks: renderBlocks,
    mrkdwn: mrkdwn,
    textObject: textObject,
    post: post,
    refresh: refresh,
    viewer: function () { return ui.viewer; }
  };
  connect();
  refresh();
})();
`;
