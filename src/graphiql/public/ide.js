// GraphiQL's start-up on the IDE page (src/graphiql/graphiql.router.ts): a file of the service, not an
// inline script, so the page's Content Security Policy allows the service's own scripts only.
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('leadnet-ide-config').textContent);
  var endpoint = config.endpoint;
  var keyInput = document.getElementById('api-key');
  var remember = document.getElementById('remember-key');
  var KEY = 'leadnet.apiKey';
  // Enter in the key field submits nothing (the page's CSP allows no form submission anyway).
  document.getElementById('keybar').addEventListener('submit', function (e) { e.preventDefault(); });

  // The key lives in this tab (sessionStorage) unless "Remember on this device" is ticked (localStorage):
  // a shared computer does not keep it after the tab closes.
  function read(storage) {
    try { return window[storage].getItem(KEY) || ''; } catch (e) { return ''; }
  }
  function write(storage, value) {
    try {
      if (value) window[storage].setItem(KEY, value);
      else window[storage].removeItem(KEY);
    } catch (e) { /* storage refused (private mode): the key stays in the field */ }
  }
  var remembered = read('localStorage');
  keyInput.value = read('sessionStorage') || remembered;
  remember.checked = Boolean(remembered);
  function save() {
    write('sessionStorage', keyInput.value);
    write('localStorage', remember.checked ? keyInput.value : '');
  }

  // GraphiQL fills a tab's Variables pane from the tab, except the first tab on the very first visit,
  // which it fills from its own saved variables: save the first example's before GraphiQL starts.
  try {
    if (!localStorage.getItem('graphiql:tabState') && config.tabs[0] && config.tabs[0].variables) {
      localStorage.setItem('graphiql:variables', config.tabs[0].variables);
    }
  } catch (e) { /* no storage: GraphiQL keeps its tabs in memory */ }

  function hasKeyHeader(headers) {
    return Object.keys(headers || {}).some(function (name) { return name.toLowerCase() === 'x-api-key'; });
  }
  // The key is read when an operation is sent (GraphiQL may run an operation with the fetcher it had);
  // a new fetcher on each key change only makes GraphiQL load the schema again.
  function makeFetcher() {
    return function fetcher(params, options) {
      var key = keyInput.value.trim();
      var extra = (options && options.headers) || {};
      // Without a key every operation (the schema's too) is a 401: say what to do instead of asking.
      if (!key && !hasKeyHeader(extra)) {
        return Promise.resolve({ errors: [{ message: 'No API key: paste one in the X-Api-Key field above (npx leadnet keys generate --user <email>).' }] });
      }
      var headers = Object.assign({ 'Content-Type': 'application/json', Accept: 'application/json' }, extra);
      if (key) headers['X-Api-Key'] = key;
      return fetch(endpoint, { method: 'POST', headers: headers, body: JSON.stringify(params), credentials: 'omit', referrerPolicy: 'no-referrer' })
        .then(function (r) {
          return r.json().catch(function () { return { errors: [{ message: 'HTTP ' + r.status + ' ' + r.statusText }] }; });
        });
    };
  }

  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  function render() {
    root.render(React.createElement(GraphiQL, {
      fetcher: makeFetcher(),
      defaultEditorToolsVisibility: true,
      defaultTabs: config.tabs,
      shouldPersistHeaders: false,
    }));
  }
  var pending;
  keyInput.addEventListener('input', function () {
    save();
    clearTimeout(pending);
    pending = setTimeout(render, 300);
  });
  remember.addEventListener('change', save);
  render();
})();
