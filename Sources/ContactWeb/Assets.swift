/// The one style sheet and the one script the pages use, served by the app (no CDN, no inline
/// code, so the Content-Security-Policy can forbid everything else).
enum Assets {
    static let css = """
    :root { color-scheme: light dark; --accent: #1f5fa8; --danger: #a61b1b; font-family: system-ui, sans-serif; }
    body { margin: 0; line-height: 1.45; }
    header.site { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid #8884; }
    header.site .home { font-weight: 600; text-decoration: none; color: inherit; }
    header.site nav { display: flex; flex-wrap: wrap; gap: 1rem; }
    header.site form.inline { margin-left: auto; }
    main { padding: 1rem; max-width: 60rem; }
    a { color: var(--accent); }
    a:focus, button:focus, input:focus, textarea:focus, select:focus { outline: 3px solid #e8a200; outline-offset: 1px; }
    button, a.button { font: inherit; padding: .35rem .8rem; border: 1px solid var(--accent); border-radius: .3rem;
      background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
    a.button { background: transparent; color: var(--accent); }
    button.danger { background: var(--danger); border-color: var(--danger); }
    form.inline { display: inline; }
    form.search { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    form.search input[type=search] { flex: 1 1 15rem; font: inherit; padding: .35rem; }
    table.contacts { border-collapse: collapse; width: 100%; }
    table.contacts th, table.contacts td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #8883; vertical-align: middle; }
    .thumb { width: 2rem; height: 2rem; border-radius: 50%; object-fit: cover; margin-right: .5rem; vertical-align: middle;
      display: inline-block; text-align: center; line-height: 2rem; background: #8883; }
    img.photo { max-width: 10rem; border-radius: .5rem; }
    dl.properties { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .3rem 1rem; }
    dl.properties dt { font-weight: 600; }
    dl.properties dd { margin: 0; white-space: pre-line; }
    .params, .meta { color: #777; font-size: .9em; }
    .notice { padding: .5rem 1rem; border-radius: .3rem; margin-bottom: 1rem; }
    .notice.success { background: #1f8a4c22; border: 1px solid #1f8a4c; }
    .notice.error { background: #a61b1b22; border: 1px solid var(--danger); }
    fieldset { border: 1px solid #8885; border-radius: .3rem; margin: 0 0 1rem; }
    fieldset .value { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .3rem .8rem; margin-bottom: .6rem; }
    fieldset .value label.remove { grid-column: 2; }
    input[type=text], input[type=search], textarea, select { font: inherit; padding: .3rem; max-width: 100%; }
    textarea#raw { width: 100%; font-family: ui-monospace, monospace; }
    pre { overflow-x: auto; background: #8881; padding: .5rem; }
    ul.problems code { white-space: pre-wrap; }
    del { color: var(--danger); } ins { color: #1f8a4c; }
    @media (max-width: 40rem) {
      dl.properties, fieldset .value { grid-template-columns: 1fr; }
      fieldset .value label.remove { grid-column: 1; }
      table.contacts td:nth-child(3), table.contacts th:nth-child(3) { display: none; }
    }
    @media print {
      header.site, .actions, form, details.raw, nav.paging { display: none; }
      a { color: inherit; text-decoration: none; }
    }
    """

    static let javascript = """
    // Progressive enhancement only: every page works without this file.
    (function () {
      'use strict';
      // Search as you type: swap in the results of /results for the text typed so far.
      var search = document.getElementById('search');
      var results = document.getElementById('results');
      if (search && results) {
        var timer = null, latest = 0;
        search.addEventListener('input', function () {
          clearTimeout(timer);
          timer = setTimeout(function () {
            var form = search.form, params = new URLSearchParams(new FormData(form));
            var ticket = ++latest;
            fetch('/results?' + params.toString(), { credentials: 'same-origin' })
              .then(function (response) { return response.ok ? response.text() : null; })
              .then(function (html) {
                if (html !== null && ticket === latest) {
                  results.innerHTML = html;
                  history.replaceState(null, '', '/?' + params.toString());
                }
              });
          }, 150);
        });
      }
      // Live check of the raw vCard editor: VCardKit's errors with file:line:column.
      var raw = document.getElementById('raw');
      var output = document.getElementById('raw-problems');
      if (raw && output) {
        var rawTimer = null;
        raw.addEventListener('input', function () {
          clearTimeout(rawTimer);
          rawTimer = setTimeout(function () {
            var body = new URLSearchParams();
            body.set('csrf', raw.form.elements.csrf.value);
            body.set('raw', raw.value);
            fetch('/validate', { method: 'POST', body: body, credentials: 'same-origin' })
              .then(function (response) { return response.ok ? response.text() : null; })
              .then(function (html) { if (html !== null) { output.innerHTML = html; } });
          }, 300);
        });
      }
    })();
    """
}
