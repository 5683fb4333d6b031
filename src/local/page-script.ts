/**
 * The local page's client: renders `/state` (messages, Block Kit, mrkdwn, ephemerals, App Home), follows
 * `/stream`, and sends what the person does to `/ui/*`. Plain ES5 in one closure, so it needs no build.
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
  var FENCE = '\x60\x60\x60';
  var TICK = '\x60';

  var EMOJI = { white_check_mark: '\u2705', heavy_check_mark: '\u2714\uFE0F', raised_hand: '\u270B', x: '\u274C', no_entry: '\u26D4', hourglass: '\u231B', hourglass_flowing_sand: '\u23F3', eyes: '\uD83D\uDC40', warning: '\u26A0\uFE0F', lock: '\uD83D\uDD12', gear: '\u2699\uFE0F', rocket: '\uD83D\uDE80', stopwatch: '\u23F1\uFE0F', bell: '\uD83D\uDD14' };
  function emoji(name) { return EMOJI[name] || ':' + name + ':'; }
  function escapeHtml(text) {
    return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function userName(id) {
    if (!state) return id;
    if (id === state.bot.userId) return state.bot.name;
    for (var i = 0; i < state.users.length; i++) if (state.users[i].id === id) return state.users[i].name;
    return id;
  }
  function groupHandle(id) {
    for (var i = 0; i < state.groups.length; i++) if (state.groups[i].id === id) return state.groups[i].handle;
    return id;
  }
  function inline(text) {
    var codes = [];
    text = text.replace(new RegExp(TICK + '([^' + TICK + '\n]+)' + TICK, 'g'), function (_m, code) {
      codes.push('<code>' + code + '</code>');
      return '\u0000' + (codes.length - 1) + '\u0000';
    });
    text = text.replace(/&lt;([^&]*?(?:&amp;[^&]*?)*)&gt;/g, function (_m, inner) {
      var bar = inner.indexOf('|');
      var target = bar >= 0 ? inner.slice(0, bar) : inner;
      var label = bar >= 0 ? inner.slice(bar + 1) : '';
      if (target.indexOf('@') === 0) return '<span class="mention">@' + escapeHtml(userName(target.slice(1))) + '</span>';
      if (target.indexOf('!subteam^') === 0) return '<span class="mention">@' + escapeHtml(groupHandle(target.slice(9))) + '</span>';
      if (target.indexOf('!date^') === 0) {
        var seconds = Number(target.split('^')[1]);
        return seconds ? new Date(seconds * 1000).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) : label || target;
      }
      if (target.indexOf('!') === 0) return '<span class="mention">@' + target.slice(1) + '</span>';
      if (target.indexOf('#') === 0) return '#' + (label || target.slice(1));
      if (/^(https?:|mailto:)/.test(target)) return '<a href="' + target + '" target="_blank" rel="noreferrer">' + (label || target) + '</a>';
      return '&lt;' + inner + '&gt;';
    });
    text = text.replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,!?:;])/g, '$1<b>$2</b>');
    text = text.replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,!?:;])/g, '$1<i>$2</i>');
    text = text.replace(/(^|[\s(])~([^~\n]+)~(?=$|[\s).,!?:;])/g, '$1<s>$2</s>');
    text = text.replace(/:([a-z0-9_+-]+):/g, function (match, name) { return EMOJI[name] ? EMOJI[name] : match; });
    text = text.replace(/\u0000(\d+)\u0000/g, function (_m, index) { return codes[Number(index)]; });
    return text.replace(/\n/g, '<br>');
  }
  function mrkdwn(text) {
    var parts = escapeHtml(text || '').split(FENCE);
    var html = '';
    for (var i = 0; i < parts.length; i++) {
      if (i % 2 === 1 && i < parts.length - 1) html += '<pre><code>' + parts[i].replace(/^\n/, '') + '</code></pre>';
      else html += inline(i % 2 === 1 ? FENCE + parts[i] : parts[i]);
    }
    return html;
  }
  function textObject(object) {
    if (!object) return '';
    return object.type === 'mrkdwn' ? mrkdwn(object.text) : escapeHtml(object.text).replace(/\n/g, '<br>');
  }

  var pendingConfirms = [];
  function button(element, target) {
    var index = pendingConfirms.length;
    pendingConfirms.push({ element: element, target: target });
    var style = element.style === 'primary' || element.style === 'danger' ? ' ' + element.style : '';
    return '<button type="button" class="bk' + style + '" data-action-id="' + escapeHtml(element.action_id || '') +
      '" data-value="' + escapeHtml(element.value || '') + '" data-button="' + index + '">' + textObject(element.text) + '</button>';
  }
  function accessory(element, target) {
    if (!element) return '';
    if (element.type === 'button') return button(element, target);
    if (element.type === 'image') return '<img alt="' + escapeHtml(element.alt_text || '') + '" src="' + escapeHtml(element.image_url || '') + '" width="48">';
    return '';
  }
  function richText(elements) {
    var html = '';
    (elements || []).forEach(function (element) {
      if (element.type === 'rich_text_preformatted') html += '<pre><code>' + richInline(element.elements) + '</code></pre>';
      else if (element.type === 'rich_text_quote') html += '<blockquote>' + richInline(element.elements) + '</blockquote>';
      else if (element.type === 'rich_text_list') html += '<ul>' + (element.elements || []).map(function (item) { return '<li>' + richInline(item.elements) + '</li>'; }).join('') + '</ul>';
      else html += '<div>' + richInline(element.elements) + '</div>';
    });
    return html;
  }
  function richInline(elements) {
    return (elements || []).map(function (element) {
      if (element.type === 'user') return '<span class="mention">@' + escapeHtml(userName(element.user_id)) + '</span>';
      if (element.type === 'usergroup') return '<span class="mention">@' + escapeHtml(groupHandle(element.usergroup_id)) + '</span>';
      if (element.type === 'link') return '<a href="' + escapeHtml(element.url) + '" target="_blank" rel="noreferrer">' + escapeHtml(element.text || element.url) + '</a>';
      var text = escapeHtml(element.text || '').replace(/\n/g, '<br>');
      var style = element.style || {};
      if (style.code) text = '<code>' + text + '</code>';
      if (style.bold) text = '<b>' + text + '</b>';
      if (style.italic) text = '<i>' + text + '</i>';
      return text;
    }).join('');
  }
  function renderBlocks(blocks, target) {
    return blocks.map(function (block) {
      switch (block.type) {
        case 'header': return '<div class="block header">' + textObject(block.text) + '</div>';
        case 'divider': return '<hr class="divider">';
        case 'section':
          return '<div class="block section"><div class="body">' + (block.text ? '<div>' + textObject(block.text) + '</div>' : '') +
            (block.fields ? '<div class="fields">' + block.fields.map(function (field) { return '<div>' + textObject(field) + '</div>'; }).join('') + '</div>' : '') +
            '</div>' + accessory(block.accessory, target) + '</div>';
        case 'context':
          return '<div class="block context">' + (block.elements || []).map(function (element) {
            return element.type === 'image' ? '' : '<span>' + textObject(element) + '</span>';
          }).join('') + '</div>';
        case 'actions':
          return '<div class="block actions">' + (block.elements || []).map(function (element) {
            return element.type === 'button' ? button(element, Object.assign({ block_id: block.block_id }, target)) : '';
          }).join('') + '</div>';
        case 'rich_text': return '<div class="block rich">' + richText(block.elements) + '</div>';
        case 'image': return '<img class="block" alt="' + escapeHtml(block.alt_text || '') + '" src="' + escapeHtml(block.image_url || '') + '" style="max-width:100%">';
        default: return '';
      }
    }).join('');
  }
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
    current.promise = fetch('/state?as=' + encodeURIComponent(ui.viewer), { cache: 'no-store' })
      .then(answered)
      .then(function (snapshot) { state = snapshot; render(); })
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
  function outgoing(text) {
    return text.replace(/@holdfast\b/g, '<@' + (state ? state.bot.userId : 'U0HOLDFAST') + '>');
  }
  function send(input, threadTs) {
    var text = input.value.trim();
    if (!text) return;
    input.value = '';
    var body = { user: ui.viewer, channel: threadTs ? ui.thread.channel : ui.channel, text: outgoing(text) };
    if (threadTs) body.thread_ts = threadTs;
    post('/ui/message', body).then(function (result) {
      if (!threadTs && result.ts && body.channel.charAt(0) === 'C' && body.text.indexOf('<@') >= 0) {
        ui.thread = { channel: body.channel, ts: result.ts };
      }
      refresh();
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

  function click(entry) {
    var body = { user: ui.viewer, action_id: entry.element.action_id, value: entry.element.value || '' };
    if (entry.target.block_id) body.block_id = entry.target.block_id;
    if (entry.target.channel) { body.channel = entry.target.channel; body.message_ts = entry.target.message_ts; }
    if (entry.target.ephemeral_id !== undefined) body.ephemeral_id = entry.target.ephemeral_id;
    post('/ui/click', body).then(refresh);
  }
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
    source.addEventListener('open', function () { $('connection').textContent = 'live'; refresh(); });
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
