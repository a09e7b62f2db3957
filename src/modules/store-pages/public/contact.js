// The store page's contact form (docs/store-pages.md): posts the form to POST /v1/store_locator/{id}/leads
// with the page's site key and an ALTCHA proof-of-work solved in the page. The `altcha` component
// (self-hosted) is loaded only once the visitor starts on the form, so nothing of it runs before then.
(function () {
  'use strict';
  var form = document.getElementById('contact-form');
  if (!form) return;
  var status = document.getElementById('contact-status');
  var submit = form.querySelector('button[type=submit]');
  var data = form.dataset;
  var proof = null;
  var loaded = null;

  function say(text, kind) {
    status.textContent = text;
    status.setAttribute('data-kind', kind);
  }

  function loadAltcha() {
    if (!loaded) {
      loaded = new Promise(function (resolve, reject) {
        var script = document.createElement('script');
        script.src = data.altcha;
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      }).then(function () {
        return customElements.whenDefined('altcha-widget');
      });
    }
    return loaded;
  }

  // A challenge is used once: each attempt solves a new one, started as soon as the visitor begins.
  function solve() {
    proof = loadAltcha()
      .then(function () {
        var widget = document.createElement('altcha-widget');
        widget.setAttribute('challenge', data.challenge);
        widget.setAttribute('auto', 'off');
        widget.setAttribute('display', 'invisible');
        widget.setAttribute('name', 'altcha');
        form.appendChild(widget);
        // The component mounts once connected, a task later.
        return new Promise(function (resolve) {
          setTimeout(resolve, 0);
        })
          .then(function () {
            return widget.verify();
          })
          .then(function (r) {
            widget.remove();
            return r && r.payload ? r.payload : null;
          });
      })
      .catch(function (err) {
        console.warn('contact form: no proof-of-work', err);
        return null;
      });
  }

  form.addEventListener('focusin', function () {
    if (!proof) solve();
  });

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var value = function (name) {
      var field = form.elements.namedItem(name);
      return field && field.value ? field.value.trim() : '';
    };
    var email = form.elements.namedItem('email');
    if (!value('name') || (!value('email') && !value('phone')) || (value('email') && !email.checkValidity())) {
      say(data.missing, 'error');
      return;
    }
    if (!form.elements.namedItem('consent').checked) {
      say(data.consentMissing, 'error');
      return;
    }
    if (!proof) solve();
    submit.disabled = true;
    say(data.sending, 'info');
    var products = Array.prototype.slice
      .call(form.querySelectorAll('input[name=product_ids]:checked'))
      .map(function (box) {
        return box.value;
      });
    proof
      .then(function (payload) {
        if (!payload) throw new Error('no proof');
        return fetch(data.action, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          credentials: 'omit',
          body: JSON.stringify({
            site_key: data.siteKey,
            altcha: payload,
            name: value('name'),
            email: value('email') || null,
            phone: value('phone') || null,
            message: value('message') || null,
            product_ids: products,
            locale: document.documentElement.lang === 'fr' ? 'fr' : 'en',
            consent: { given: true, text: data.consentText, version: data.consentVersion },
            website: value('website'),
          }),
        });
      })
      .then(function (res) {
        if (res.status !== 202) throw new Error(String(res.status));
        form.reset();
        say(data.done, 'done');
        submit.disabled = false;
        proof = null;
      })
      .catch(function (err) {
        say(err && err.message === '429' ? data.busy : data.failed, 'error');
        submit.disabled = false;
        solve();
      });
  });
})();
