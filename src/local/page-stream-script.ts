/**
 * Streamed messages on the local page, as Slack shows an answer being written: the markdown text so far,
 * a card per task with its state, the blocks the stream carried (holdfast's Stop button), and a marker
 * while the stream is open. Plain ES5 like the page script, whose renderers it borrows.
 */
export const pageStreamScript = String.raw`
(function () {
  var page = window.holdfastPage;
  var LABEL = { pending: 'Pending', in_progress: 'Running', complete: 'Done', error: 'Failed' };
  var MARK = { pending: '\u26AA', in_progress: '\u23F3', complete: '\u2705', error: '\u274C' };
  function esc(text) {
    return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  // Streams carry markdown: its bold and links read as mrkdwn once rewritten.
  function markdown(text) {
    return page.mrkdwn(text.replace(/\*\*([^*\n]+)\*\*/g, '*$1*').replace(/\[([^\]\n]+)\]\((https?:[^)\s]+)\)/g, '<$2|$1>'));
  }
  function task(entry) {
    var awaiting = entry.status === 'pending' && /approval/i.test(entry.details || '');
    var status = awaiting ? 'awaiting_approval' : entry.status;
    var label = awaiting ? 'Awaiting approval' : LABEL[entry.status] || entry.status;
    return '<li class="task" data-task-id="' + esc(entry.id) + '" data-task-status="' + esc(status) + '">' +
      '<span class="task-mark">' + (MARK[entry.status] || '') + '</span> <code>' + esc(entry.title) + '</code> ' +
      '<span class="task-status">' + esc(label) + '</span>' +
      (entry.details && !awaiting ? ' <span class="task-details">(' + esc(entry.details) + ')</span>' : '') + '</li>';
  }
  window.holdfastStream = {
    render: function (message, target) {
      var stream = message.stream;
      return '<div class="stream" data-stream="' + (stream.open ? 'open' : 'stopped') + '">' +
        (message.text ? '<div class="stream-text">' + markdown(message.text) + '</div>' : '') +
        (stream.tasks.length ? '<ul class="tasks">' + stream.tasks.map(task).join('') + '</ul>' : '') +
        page.renderBlocks(stream.blocks, target) +
        (stream.open ? '<div class="streaming">\u2026 writing</div>' : '') + '</div>';
    }
  };
})();
`;
