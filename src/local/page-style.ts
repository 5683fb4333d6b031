/** The local page's stylesheet: Slack-like, legible, and usable at phone width. */
export const pageStyle = `
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1d1c1d; background: #fff; height: 100vh; display: flex; flex-direction: column; }
  header { display: flex; align-items: center; gap: 12px; padding: 8px 12px; background: #3f0e40; color: #fff; flex-wrap: wrap; }
  header .title { font-weight: 700; }
  header .model { font-size: 12px; background: #611f69; padding: 2px 8px; border-radius: 10px; }
  header .conn { font-size: 12px; opacity: .8; }
  header label { margin-left: auto; font-size: 13px; }
  header select { font-size: 14px; padding: 2px 4px; }
  .notice { padding: 8px 16px; font-size: 14px; background: #fff4e5; border-bottom: 1px solid #f2c744; }
  .notice.error { background: #fdecea; border-bottom-color: #e01e5a; }
  .notice[hidden] { display: none; }
  .layout { flex: 1; display: flex; min-height: 0; }
  nav { width: 200px; background: #3f0e40; color: #cfc3cf; padding: 8px 0; overflow-y: auto; flex-shrink: 0; }
  nav h3 { font-size: 12px; text-transform: uppercase; margin: 12px 16px 4px; opacity: .7; }
  nav a { display: block; padding: 4px 16px; color: inherit; text-decoration: none; cursor: pointer; }
  nav a.active { background: #1164a3; color: #fff; }
  main, aside { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
  main { flex: 1; }
  aside { width: 420px; border-left: 1px solid #ddd; }
  aside[hidden] { display: none; }
  .pane-title { padding: 10px 16px; border-bottom: 1px solid #ddd; font-weight: 700; display: flex; align-items: center; gap: 8px; }
  .pane-title button { margin-left: auto; }
  .messages { flex: 1; overflow-y: auto; padding: 8px 0; }
  .message { padding: 6px 16px; }
  .message:hover { background: #f8f8f8; }
  .message .who { font-weight: 700; }
  .message .when { color: #616061; font-size: 12px; margin-left: 6px; }
  .message .edited { color: #616061; font-size: 12px; }
  .message.ephemeral { background: #f4f9fd; border-left: 3px solid #1264a3; }
  .only-you { color: #616061; font-size: 12px; font-style: italic; }
  .replies { color: #1264a3; font-size: 13px; cursor: pointer; background: none; border: 0; padding: 2px 0; }
  .reactions { display: flex; gap: 4px; margin-top: 4px; }
  .reaction { border: 1px solid #ddd; border-radius: 10px; padding: 0 6px; font-size: 13px; background: #f6f6f6; }
  .composer { border-top: 1px solid #ddd; padding: 8px 12px; display: flex; gap: 8px; }
  .composer textarea { flex: 1; resize: none; font: inherit; padding: 6px 8px; border: 1px solid #bbb; border-radius: 6px; min-height: 38px; }
  .composer button { padding: 0 14px; }
  .block { margin: 4px 0; }
  .block.header { font-weight: 700; font-size: 17px; }
  .fields { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; margin-top: 4px; }
  .section { display: flex; gap: 8px; align-items: flex-start; }
  .section > .body { flex: 1; min-width: 0; }
  .context { color: #616061; font-size: 12px; display: flex; gap: 8px; flex-wrap: wrap; }
  hr.divider { border: 0; border-top: 1px solid #ddd; }
  .actions { display: flex; gap: 8px; flex-wrap: wrap; }
  button.bk { border: 1px solid #bbb; background: #fff; border-radius: 4px; padding: 4px 12px; font: inherit; font-weight: 600; cursor: pointer; }
  button.bk.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
  button.bk.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
  button.bk:disabled { opacity: .5; }
  pre { background: #f8f8f8; border: 1px solid #e2e2e2; border-radius: 4px; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
  code { background: #f3f3f3; border: 1px solid #e2e2e2; border-radius: 3px; padding: 0 3px; color: #c01343; font-size: 13px; }
  pre code { background: none; border: 0; color: inherit; padding: 0; }
  .mention { background: #e8f5fa; color: #1264a3; border-radius: 3px; padding: 0 2px; }
  .home { padding: 16px; overflow-y: auto; flex: 1; }
  .empty { color: #616061; padding: 16px; }
  dialog { border: 0; border-radius: 8px; padding: 20px; max-width: 420px; width: 90vw; box-shadow: 0 8px 30px rgba(0,0,0,.3); }
  dialog h2 { margin: 0 0 8px; font-size: 18px; }
  dialog .buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 16px; }
  #modal { max-width: 520px; }
  #modal .input { display: flex; flex-direction: column; gap: 4px; margin: 10px 0; }
  #modal .input textarea, #modal .input input, #modal .input select { font: inherit; padding: 6px; }
  #modal .hint, #modal .optional { color: #616061; font-size: 12px; }
  #modal .field-error { color: #e01e5a; font-size: 13px; }
  #modal .field-error:empty { display: none; }
  .tasks { list-style: none; padding: 0; margin: 4px 0; }
  .task { border: 1px solid #e2e2e2; border-radius: 6px; padding: 3px 8px; margin: 3px 0; font-size: 14px; }
  .task-status, .task-details, .streaming { color: #616061; font-size: 12px; }
  .legend { list-style: none; padding: 0 12px; margin: 0; font-size: 12px; line-height: 1.7; }
  @media (max-width: 760px) {
    nav { width: 100%; display: flex; flex-wrap: wrap; padding: 4px; }
    nav h3 { display: none; }
    nav a { padding: 4px 8px; }
    .layout { flex-direction: column; }
    aside { width: 100%; border-left: 0; border-top: 1px solid #ddd; flex: 1; }
    body.thread-open main { display: none; }
    .fields { grid-template-columns: 1fr; }
  }
`;
