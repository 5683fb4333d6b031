/**
 * How the local page draws Slack content: mrkdwn, emoji, rich text and Block Kit blocks, as HTML. A part
 * of the page script's closure (see page-script.ts), not a script of its own: it reads the closure's
 * `state` for the names of mentioned people and groups, and `button` records each button in
 * `pendingConfirms` for the page's click handler. Plain ES5, like the rest of the page.
 */
export const pageBlocksScript = String.raw`
  var FENCE = '\x60\x60\x60';
  var TICK = '\x60';

  var EMOJI = { white_check_mark: '\u2705', heavy_check_mark: '\u2714\uFE0F', raised_hand: '\u270B', x: '\u274C', no_entry: '\u26D4', hourglass: '\u231B', hourglass_flowing_sand: '\u23F3', eyes: '\uD83D\uDC40', warning: '\u26A0\uFE0F', lock: '\uD83D\uDD12', gear: '\u2699\uFE0F', rocket: '\uD83D\uDE80', stopwatch: '\u23F1\uFE0F', bell: '\uD83D\uDD14', exclamation: '\u2757' };
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
  function channelName(id) {
    if (!state) return id;
    for (var i = 0; i < state.channels.length; i++) if (state.channels[i].id === id) return state.channels[i].name;
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
      if (target.indexOf('#') === 0) return '<span class="mention">#' + (label || escapeHtml(channelName(target.slice(1)))) + '</span>';
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
  // Slack's mrkdwn carries three escapes (&amp; &lt; &gt;) that Slack shows as the characters they stand
  // for. Escaped for HTML they read &amp;amp; and so on: one level comes off once links are found, so a
  // command reads "a && b < c" as typed, and a real "<" still never opens a link.
  function unescapeSlack(html) {
    return html.replace(/&amp;(amp|lt|gt);/g, '&$1;');
  }
  function mrkdwn(text) {
    var parts = escapeHtml(text || '').split(FENCE);
    var html = '';
    for (var i = 0; i < parts.length; i++) {
      if (i % 2 === 1 && i < parts.length - 1) html += '<pre><code>' + parts[i].replace(/^\n/, '') + '</code></pre>';
      else html += inline(i % 2 === 1 ? FENCE + parts[i] : parts[i]);
    }
    return unescapeSlack(html);
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
`;
