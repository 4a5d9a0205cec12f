/* The invitation link's page: the token after "#token=" never reaches the server until the
   visitor takes the seat. It is kept in this tab (sessionStorage) while they sign in elsewhere
   on the site, and taken off the address bar at once. Uses app.js's API helper. */
(function () {
  "use strict";
  function init() {
    var section = document.getElementById("invitation");
    if (!section || !window.gameledger) return;
    var game = section.dataset.gameId;
    var key = "gl_invitation:" + game;
    var match = location.hash.match(/token=([\w\-]+)/);
    if (match) {
      try { sessionStorage.setItem(key, match[1]); } catch (e) { /* kept in this page only */ }
      history.replaceState(null, "", location.pathname);
    }
    var token = match ? match[1] : null;
    if (!token) { try { token = sessionStorage.getItem(key); } catch (e) { token = null; } }
    var error = section.querySelector("[data-error]");
    var api = window.gameledger.api;
    function fail(data) { error.textContent = window.gameledger.errorText(data); }
    if (!token) {
      section.querySelector("[data-missing]").hidden = false;
      section.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      return;
    }
    function take(extra) {
      return api("POST", "/api/v1/games/" + game + "/invitations/accept", { token: token }, extra).then(function (r) {
        if (!r.ok) { fail(r.data); return false; }
        try { sessionStorage.removeItem(key); } catch (e) { /* nothing kept */ }
        location.assign("/games/" + game);
        return true;
      });
    }
    var button = section.querySelector("[data-take]");
    if (button) button.addEventListener("click", function () {
      error.textContent = "";
      button.disabled = true;
      take().then(function (ok) { if (!ok) button.disabled = false; });
    });
    var form = document.getElementById("invite-signup-form");
    if (form) form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      error.textContent = "";
      var name = form.querySelector("#invite-name").value.trim();
      if (!name) { fail({ message: "Please give a name." }); return; }
      var body = { name: name };
      var email = form.querySelector("#invite-email").value.trim();
      var password = form.querySelector("#invite-password").value;
      if (email) body.email = email;
      if (password) body.password = password;
      var submit = form.querySelector("button[type=submit]");
      submit.disabled = true;
      api("POST", "/api/v1/players", body).then(function (r) {
        if (!r.ok) { submit.disabled = false; fail(r.data); return; }
        api("POST", "/api/v1/sessions", { token: r.data.token }).then(function (s) {
          if (!s.ok) { submit.disabled = false; fail(s.data); return; }
          take({ "X-CSRF-Token": s.data.csrf_token }).then(function (ok) { if (!ok) submit.disabled = false; });
        });
      });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
