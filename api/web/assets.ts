/**
 * The pages' only stylesheet and script, served from the API process (no build step). The script
 * only adds the copy buttons and keeps a running batch's page up to date: every page works without
 * it (the batch page has a reload link).
 */
export const STYLESHEET = `
:root { color-scheme: light; --fg: #1d2430; --muted: #5b6472; --line: #d7dce3; --accent: #0b5fff; --bad: #b3261e; --ok: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #f6f7f9; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip, .default-action { position: absolute; left: -9999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 1; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: .75rem 1.5rem; display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; }
header .brand { font-weight: 700; margin-right: auto; }
header nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; min-width: 0; max-width: 100%; }
header nav a { text-decoration: none; } header nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; }
header form { margin: 0; }
main { max-width: 72rem; margin: 1.5rem auto; padding: 0 1.5rem; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem 1.25rem; margin-bottom: 1.25rem; overflow-x: auto; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; } h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
h1, h2 { overflow-wrap: anywhere; } /* an id or a name in a heading breaks rather than widen a phone's page */
table { border-collapse: collapse; width: 100%; font-size: .92rem; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
label { display: block; font-weight: 600; margin: .5rem 0 .2rem; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: .5rem 0; } fieldset label { display: inline-block; font-weight: 400; margin-right: 1rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=datetime-local], input[type=search], input[type=date], input[type=tel], select { font: inherit; padding: .35rem .5rem; border: 1px solid #9aa3af; border-radius: 4px; min-width: 18rem; }
button { font: inherit; padding: .35rem .9rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: var(--bad); border-color: var(--bad); }
.inline { display: inline; } .muted { color: var(--muted); } .hint { color: var(--muted); font-size: .9rem; margin: .2rem 0; }
.notice { border-left: 4px solid var(--ok); background: #eef7f0; padding: .6rem 1rem; margin-bottom: 1rem; }
.error { border-left: 4px solid var(--bad); background: #fbeeed; padding: .6rem 1rem; margin-bottom: 1rem; }
.secret { font-family: ui-monospace, monospace; background: #fffbe6; border: 1px dashed #c9a400; padding: .5rem; word-break: break-all; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 3px; font-size: .85rem; background: #e8ebf0; }
.badge.bad { background: #fbeeed; color: var(--bad); } .badge.ok { background: #eef7f0; color: var(--ok); }
code { font-family: ui-monospace, monospace; font-size: .9em; }
/* Ids, tracking numbers and file headers are long unbroken words: they break rather than run out of their box. */
code, td, .check-result, address { overflow-wrap: anywhere; }
input, select { max-width: 100%; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
.field { margin: 0 0 .5rem; min-width: 0; } .field label { margin-top: .5rem; }
.field .hint { display: block; }
.field.short input { min-width: 0; width: 100%; }
.field.check { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 .5rem; margin: .75rem 0; } .field.check label { display: inline; margin: 0; }
.field.check .hint, .field.check .field-error { flex-basis: 100%; }
.field-error { display: block; color: var(--bad); font-weight: 600; margin: .2rem 0; }
[aria-invalid="true"] { border-color: var(--bad) !important; outline: 1px solid var(--bad); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 15rem), 1fr)); gap: 0 1rem; }
.grid input, .grid select { min-width: 0; width: 100%; }
fieldset.address, fieldset.line { padding: .5rem .75rem; min-width: 0; }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; margin: .75rem 0; }
.check-result { border: 1px solid var(--line); border-radius: 4px; padding: .5rem .75rem; margin: .5rem 0; background: #fafbfc; }
.rates { list-style: none; padding: 0; margin: 0; } .rates li { display: flex; gap: .5rem; align-items: baseline; padding: .4rem 0; border-bottom: 1px solid var(--line); }
.rates label { display: inline; font-weight: 400; margin: 0; }
.timeline { padding-left: 1.25rem; } .timeline li { margin: .35rem 0; } .timeline .when { color: var(--muted); }
.downloads { padding-left: 1.25rem; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 16rem), 1fr)); gap: 1rem; }
address { font-style: normal; }
table.pairs th { width: 12rem; }
form.inline-form { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin-top: 1rem; } form.inline-form label { margin: 0; }
#problems ul { margin: .25rem 0 0; padding-left: 1.25rem; }
/* A phone's screen: less padding, and tables read as one card per row, each cell named by its column. */
@media (max-width: 40rem) {
  header { padding: .5rem .75rem; gap: .5rem 1rem; }
  main { padding: 0 .75rem; margin-top: 1rem; }
  section { padding: .75rem; }
  input[type=text], input[type=email], input[type=password], input[type=url], input[type=datetime-local], input[type=search], input[type=date], input[type=tel], select { min-width: 0; width: 100%; }
  table.stack thead { position: absolute; left: -9999px; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: .4rem 0; }
  table.stack td { border: 0; padding: .15rem 0; }
  table.stack td[data-label]:not([data-label=""])::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 600; }
  table.pairs th { width: auto; }
}
`;

export const SCRIPT = `
document.querySelectorAll('[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var source = document.getElementById(button.getAttribute('data-copy'));
    var text = source ? source.textContent : '';
    var done = function () { button.textContent = 'Copied'; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { select(source); });
    } else {
      select(source);
      try { document.execCommand('copy'); done(); } catch (e) { /* selected: the user copies by hand */ }
    }
  });
});
// A section marked data-refresh-ms (a batch still running) has its page fetched again after that
// long, and the page's content replaced by the new one's, until the new one is no longer marked.
(function refresh() {
  var marked = document.querySelector('[data-refresh-ms]');
  if (!marked || !window.fetch || !window.DOMParser) return;
  var wait = Number(marked.getAttribute('data-refresh-ms')) || 2000;
  setTimeout(function () {
    // Without the notice of the step that led here: it was said once, on the first showing.
    var url = new URL(location.href);
    url.searchParams.delete('notice');
    fetch(url.toString(), { credentials: 'same-origin', headers: { accept: 'text/html' } }).then(function (res) {
      // Signed out meanwhile: the address it was sent to is the sign-in page, shown as a page.
      if (res.redirected) { location.href = res.url; return; }
      return res.text().then(function (text) {
        var fresh = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
        var main = document.querySelector('main');
        if (fresh && main) main.innerHTML = fresh.innerHTML;
        refresh();
      });
    }).catch(function () { setTimeout(refresh, wait * 4); });
  }, wait);
})();
function select(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}
`;

export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5fff"/><path d="M4 5h8v6H4z" fill="#fff"/></svg>`;
