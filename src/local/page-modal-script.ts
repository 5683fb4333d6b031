/**
 * Modals on the local page, as Slack shows them: what `views.open` / `views.update` put in front of the
 * viewer, with its input blocks as form fields; Submit sends a `view_submission` (errors holdfast answers
 * with are shown beside their inputs, the form left open), Cancel closes it.
 * Plain ES5 like the page script, whose renderers it borrows through `window.holdfastPage`.
 */
export const pageModalScript = `
(function () {
  var page = window.holdfastPage;
  var $ = function (id) { return document.getElementById(id); };
  var shown = null;
  function esc(text) {
    return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function field(block) {
    var element = block.element || {};
    var name = ' data-block="' + esc(block.block_id || '') + '" data-action="' + esc(element.action_id || '') + '"';
    var label = '<label class="modal-label">' + page.textObject(block.label) + (block.optional ? ' <span class="optional">(optional)</span>' : '') + '</label>';
    var hint = block.hint ? '<div class="hint">' + page.textObject(block.hint) + '</div>' : '';
    var control = '';
    if (element.type === 'plain_text_input') {
      var initial = esc(element.initial_value || '');
      var placeholder = element.placeholder ? ' placeholder="' + esc(element.placeholder.text) + '"' : '';
      var max = element.max_length ? ' maxlength="' + element.max_length + '"' : '';
      control = element.multiline
        ? '<textarea data-kind="text" rows="3"' + name + placeholder + max + '>' + initial + '</textarea>'
        : '<input data-kind="text"' + name + placeholder + max + ' value="' + initial + '">';
    } else if (element.type === 'number_input') {
      control = '<input data-kind="text" type="number" step="1"' + name + (element.min_value ? ' min="' + esc(element.min_value) + '"' : '') +
        (element.max_value ? ' max="' + esc(element.max_value) + '"' : '') + '>';
    } else if (element.type === 'static_select' || element.type === 'radio_buttons') {
      var chosen = element.initial_option ? element.initial_option.value : '';
      // Nothing is chosen until the viewer chooses, as in Slack (an optional field may stay so).
      control = '<select data-kind="option"' + name + '>' + (chosen ? '' : '<option value="" selected>Choose…</option>') + (element.options || []).map(function (option) {
        return '<option value="' + esc(option.value) + '"' + (option.value === chosen ? ' selected' : '') + '>' + esc(option.text.text) + '</option>';
      }).join('') + '</select>';
    } else if (element.type === 'multi_static_select') {
      var initial = (element.initial_options || []).map(function (option) { return option.value; });
      control = '<select multiple data-kind="options"' + name + '>' + (element.options || []).map(function (option) {
        return '<option value="' + esc(option.value) + '"' + (initial.indexOf(option.value) >= 0 ? ' selected' : '') + '>' + esc(option.text.text) + '</option>';
      }).join('') + '</select>';
    }
    var error = '<div class="field-error" role="alert" data-error-for="' + esc(block.block_id || '') + '"></div>';
    return '<div class="block input">' + label + control + hint + error + '</div>';
  }
  function render(state) {
    var modal = state.modal;
    var dialog = $('modal');
    if (!modal) {
      if (dialog.open) dialog.close();
      shown = null;
      return;
    }
    var key = modal.id + ':' + JSON.stringify(modal.view);
    if (shown === key && dialog.open) return;
    shown = key;
    var view = modal.view;
    $('modal-title').innerHTML = page.textObject(view.title);
    $('modal-body').innerHTML = (view.blocks || []).map(function (block) {
      return block.type === 'input' ? field(block) : page.renderBlocks([block], {});
    }).join('');
    $('modal-submit').hidden = !view.submit;
    $('modal-submit').innerHTML = view.submit ? page.textObject(view.submit) : '';
    $('modal-close').innerHTML = page.textObject(view.close || { type: 'plain_text', text: 'Close' });
    dialog.dataset.viewId = modal.id;
    if (!dialog.open) dialog.showModal();
  }
  $('modal-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var values = {};
    Array.prototype.forEach.call($('modal-body').querySelectorAll('[data-kind]'), function (control) {
      var block = control.getAttribute('data-block');
      values[block] = values[block] || {};
      var kind = control.getAttribute('data-kind');
      if (kind === 'option' && control.value === '') return;
      values[block][control.getAttribute('data-action')] = kind === 'text'
        ? { text: control.value.trim() }
        : kind === 'options'
          ? { options: Array.prototype.map.call(control.selectedOptions, function (option) { return option.value; }) }
          : { option: control.value };
    });
    page.post('/ui/submit', { user: page.viewer(), view_id: $('modal').dataset.viewId, values: values }).then(function (result) {
      // Slack keeps the form open and shows holdfast's errors beside the inputs (response_action: errors).
      var errors = result && result.errors && result.errors.errors ? result.errors.errors : {};
      Array.prototype.forEach.call($('modal-body').querySelectorAll('[data-error-for]'), function (slot) {
        slot.textContent = errors[slot.getAttribute('data-error-for')] || '';
      });
      page.refresh();
    });
  });
  $('modal-close').addEventListener('click', function () {
    $('modal').close();
    page.post('/ui/close-modal', { user: page.viewer(), view_id: $('modal').dataset.viewId }).then(page.refresh);
  });
  window.holdfastModal = { render: render };
})();
`;
