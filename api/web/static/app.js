/* gameledger pages: calls to the REST API, live updates and the replay.
   Pages are complete on the server; this script sends state-changing calls signed in by the
   HttpOnly session cookie, each with the page's anti-forgery proof (X-CSRF-Token: a page of
   another site can neither read nor make it), and swaps in the re-rendered part of a page when
   the game changes. A browser that still holds a token from the older pages (localStorage and a
   gl_token cookie) trades it for a session once. */
(function () {
  "use strict";

  var LEGACY = "gl_token";
  var POLL_MS = 3000;
  var upgrading = false;  // a legacy token is being traded for a session: the page reloads

  // --- the sign-in: the session cookie (HttpOnly), and the page's anti-forgery proof -------------
  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : null;
  }
  function readCookie() {
    var m = document.cookie.match(/(?:^|;\s*)gl_token=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : null;
  }
  function legacyToken() {
    var kept = null;
    try { kept = localStorage.getItem(LEGACY); } catch (e) { kept = null; }
    return kept || readCookie();
  }
  function forgetLegacy() {
    try { localStorage.removeItem(LEGACY); } catch (e) { /* nothing kept */ }
    document.cookie = "gl_token=; Path=/; Max-Age=0; SameSite=Lax";
  }
  function upgradeLegacy() {
    // a token kept by the older pages becomes a session (then the token is forgotten here)
    var t = legacyToken();
    if (!t) return false;
    if (document.body.dataset.session === "true") { forgetLegacy(); return false; }
    api("POST", "/api/v1/sessions", { token: t }).then(function (r) {
      forgetLegacy();
      if (r.ok) location.reload();
    });
    return true;
  }

  // --- the REST API ----------------------------------------------------------------------
  function api(method, path, body, extra) {
    var headers = { "Accept": "application/json" };
    if (extra) Object.keys(extra).forEach(function (k) { headers[k] = extra[k]; });
    var proof = csrf();
    if (proof) headers["X-CSRF-Token"] = proof;
    else if (legacyToken()) headers.Authorization = "Bearer " + legacyToken();
    var init = { method: method, headers: headers, credentials: "same-origin" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var data = {};
        try { data = text ? JSON.parse(text) : {}; } catch (e) { data = { message: text }; }
        return { ok: res.ok, status: res.status, data: data };
      });
    }, function () {
      return { ok: false, status: 0, data: { code: "network/unreachable", message: "The server did not answer; try again." } };
    });
  }
  function errorText(data) {
    if (data && data.code) return data.code + ": " + data.message;
    return (data && data.message) || "Something went wrong.";
  }
  function errorBox(el) {
    // the nearest error line: in the same form, decision type or section as the element
    for (var scope = el.closest("form, .decision-type, section"); scope; scope = scope.parentElement && scope.parentElement.closest("form, .decision-type, section")) {
      var box = scope.querySelector("[data-error]");
      if (box) return box;
    }
    return document.querySelector("[data-error]");
  }
  function showError(el, data) {
    var box = errorBox(el);
    if (box) { box.textContent = errorText(data); box.setAttribute("tabindex", "-1"); }
  }
  function clearError(el) {
    var box = errorBox(el);
    if (box) box.textContent = "";
  }
  function notify(text, href) {
    var area = document.getElementById("notifications");
    if (!area) return;
    var p = document.createElement("p");
    if (href) {
      var a = document.createElement("a");
      a.href = href;
      a.textContent = text;
      p.appendChild(a);
    } else {
      p.textContent = text;
    }
    area.textContent = "";  // one note at a time: the newest
    area.appendChild(p);
    setTimeout(function () { if (p.parentNode) p.parentNode.removeChild(p); }, 8000);
  }

  // --- fields generated from JSON schemas (api/web/forms.py) -----------------------------
  function readValue(el) {
    if (el.tagName === "SELECT") return JSON.parse(el.value);
    if (el.type === "checkbox") return el.checked;
    if (el.type === "number") return el.value === "" ? null : Number(el.value);
    if (el.tagName === "TEXTAREA") return el.value.trim() === "" ? null : JSON.parse(el.value);
    return el.value;
  }
  function collect(container) {
    var out = {};
    container.querySelectorAll("[data-field]").forEach(function (f) {
      if (f.closest("fieldset[disabled]")) return;
      var name = f.dataset.field;
      var kind = f.dataset.kind;
      if (kind === "checks") {  // the values ticked; all of them: null (every kind, new ones too)
        var boxes = f.querySelectorAll("input[type=checkbox]");
        var ticked = Array.prototype.filter.call(boxes, function (b) { return b.checked; });
        out[name] = ticked.length === boxes.length ? null : ticked.map(function (b) { return b.value; });
        return;
      }
      if (kind === "tuple" || kind === "list") {
        var values = Array.prototype.map.call(f.querySelectorAll("[data-part]"), readValue);
        out[name] = kind === "list" ? values.filter(function (v) { return v !== null; }) : values;
        return;
      }
      var el = f.querySelector("input, select, textarea");
      if (!el) return;
      var value = readValue(el);
      if (value === null && !f.hasAttribute("data-nullable") && el.tagName !== "SELECT") return;
      out[name] = value;
    });
    return out;
  }

  // --- partial refresh: fetch the page again and swap one element -------------------------
  var refreshing = null;
  var again = false;
  var ownMove = false;  // the next refresh follows the reader's own decision: nothing to announce
  function swap(doc, id) {
    var fresh = doc.getElementById(id);
    var current = document.getElementById(id);
    if (!fresh || !current) return null;
    var focusedId = document.activeElement && current.contains(document.activeElement) ? document.activeElement.id : null;
    var open = [];
    current.querySelectorAll("details[open]").forEach(function (d) {
      var owner = d.closest("[id]");
      if (owner) open.push(owner.id);
    });
    current.replaceWith(fresh);
    open.forEach(function (ownerId) {
      var owner = document.getElementById(ownerId);
      var d = owner && owner.querySelector("details");
      if (d) d.open = true;
    });
    if (focusedId !== null) {
      var again_ = focusedId && document.getElementById(focusedId);
      if (again_) again_.focus();
      else {
        var heading = fresh.querySelector("h2[tabindex]");
        if (heading) heading.focus();
      }
    }
    return fresh;
  }
  function refresh(id) {
    id = id || "live";
    if (refreshing) { again = true; return refreshing; }
    refreshing = fetch(location.pathname + location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var before = document.getElementById(id);
        var oldVersion = before && before.dataset.version;
        var incoming = doc.getElementById(id);
        // the same version again (a second refresh asked for meanwhile): keep what the reader
        // is doing on the page (a preview, an open menu)
        if (oldVersion && incoming && incoming.dataset.version === oldVersion) { ownMove = false; return; }
        var fresh = swap(doc, id);
        document.title = doc.title;
        if (fresh && fresh.dataset.version && fresh.dataset.version !== oldVersion && !ownMove) announce(fresh);
        ownMove = false;
      })
      .catch(function () { /* the next update tries again */ })
      .then(function () {
        refreshing = null;
        if (again) { again = false; refresh(id); }
      });
    return refreshing;
  }
  function announce(live) {
    // A visible note only when it becomes the reader's turn or the game ends; screen readers hear it too.
    var mine = (live.dataset.mySeats || "").split(",").filter(Boolean);
    var awaited = (live.dataset.awaiting || "").split(",").filter(Boolean);
    if (live.dataset.status === "finished") notify("The game is over.");
    else if (mine.some(function (s) { return awaited.indexOf(s) >= 0; })) notify("Your turn (version " + live.dataset.version + ").");
  }

  // --- the game page ----------------------------------------------------------------------
  function liveVersion() {
    var live = document.getElementById("live");
    return live ? Number(live.dataset.version) : 0;
  }
  function setBusy(busy) {
    var live = document.getElementById("live");
    if (!live) return;
    live.setAttribute("aria-busy", busy ? "true" : "false");
    live.querySelectorAll("button").forEach(function (b) { b.disabled = busy; });
  }
  function watchGame(page) {
    var stream = page.dataset.streamUrl;
    var pollUrl = page.dataset.pollUrl;
    var timer = null;
    function changed(version, status) {
      if (version > liveVersion()) refresh();  // a late message about an older version changes nothing
      return status === "finished" || status === "abandoned";
    }
    function poll() {
      if (timer) return;
      page.dataset.live = "polling";
      timer = setInterval(function () {
        if (document.hidden) return;
        api("GET", pollUrl).then(function (r) {
          if (r.ok && changed(r.data.version, r.data.status)) { clearInterval(timer); }
        });
        pollTalk();
      }, POLL_MS);
    }
    if (stream && window.EventSource) {
      var failures = 0;
      var es = new EventSource(stream);
      es.addEventListener("game", function (e) {
        failures = 0;
        var d = JSON.parse(e.data);
        if (changed(d.version, d.status)) es.close();
      });
      es.addEventListener("talk", function (e) { showMessage(JSON.parse(e.data)); });
      es.onopen = function () { failures = 0; };  // a stream ended by the server reconnects: no failure
      es.onerror = function () {
        failures += 1;
        if (es.readyState === EventSource.CLOSED || failures > 3) { es.close(); poll(); }
      };
      page.dataset.live = "sse";
    } else {
      poll();
    }
  }

  // --- table talk: a message is text (textContent), never markup ---------------------------
  function showMessage(m) {
    var list = document.getElementById("talk-messages");
    if (!list || list.querySelector('[data-number="' + Number(m.number) + '"]')) return;
    var empty = list.querySelector(".empty");
    if (empty) list.removeChild(empty);
    var li = document.createElement("li");
    li.dataset.number = String(Number(m.number));
    var who = document.createElement("span");
    who.className = "who";
    who.textContent = m.name;
    var meta = document.createElement("span");
    meta.className = "muted";
    meta.textContent = (m.seat === null ? " (watching)" : "") + " · at version " + m.game_version;
    var p = document.createElement("p");
    if (m.hidden) { p.className = "hidden-message muted"; p.textContent = "Hidden by the operator: " + m.hidden.reason; }
    else { p.className = "text"; p.textContent = m.text; }
    li.appendChild(who);
    li.appendChild(meta);
    li.appendChild(p);
    list.appendChild(li);
  }
  function pollTalk() {
    var talk = document.getElementById("talk");
    var list = document.getElementById("talk-messages");
    if (!talk || !list) return;
    var seen = list.querySelectorAll("[data-number]").length;
    api("GET", talk.dataset.url + "?after=" + seen).then(function (r) {
      if (r.ok) r.data.messages.forEach(showMessage);
    });
  }
  function initTalk(talk) {
    var form = document.getElementById("talk-form");
    if (form) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        clearError(form);
        var box = document.getElementById("talk-text");
        var submit = form.querySelector("button[type=submit]");
        submit.disabled = true;
        api("POST", talk.dataset.url, { text: box.value }).then(function (r) {
          submit.disabled = false;
          if (!r.ok) { showError(form, r.data); return; }
          box.value = "";
          showMessage(r.data);
        });
      });
    }
    var spectators = document.getElementById("talk-spectators");
    if (spectators) {
      spectators.addEventListener("change", function () {
        api("PUT", talk.dataset.url + "/settings", { spectators: spectators.checked }).then(function (r) {
          if (!r.ok) { spectators.checked = !spectators.checked; notify(errorText(r.data)); }
        });
      });
    }
  }

  function signOut() {
    var done = function () { forgetLegacy(); location.assign("/signup"); };
    if (document.body.dataset.session === "true") api("DELETE", "/api/v1/me/sessions/current").then(done);
    else done();
  }
  // --- buttons anywhere (delegated, so they work after a swap) ------------------------------
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("button");
    if (!el || el.disabled) return;
    if (el.hasAttribute("data-sign-out")) {
      ev.preventDefault();
      signOut();
    } else if (el.dataset.join) {
      ev.preventDefault();
      clearError(el);
      el.disabled = true;
      api("POST", "/api/v1/games/" + el.dataset.join + "/join").then(function (r) {
        el.disabled = false;
        if (!r.ok) { showError(el, r.data); return; }
        location.assign("/games/" + el.dataset.join);
      });
    } else if (el.dataset.apiPost || el.dataset.apiDelete) {
      ev.preventDefault();
      clearError(el);
      var body = el.dataset.body ? JSON.parse(el.dataset.body) : undefined;
      if (el.hasAttribute("data-with-version")) { body = body || {}; body.expected_version = liveVersion(); }
      var method = el.dataset.apiPost ? "POST" : "DELETE";
      el.disabled = true;
      api(method, el.dataset.apiPost || el.dataset.apiDelete, body).then(function (r) {
        el.disabled = false;
        if (!r.ok) { showError(el, r.data); return; }
        if (document.getElementById("live")) refresh(); else location.reload();
      });
    }
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (form.dataset.apiForm && form.dataset.then) {
      // a form that is one API call: its fields as the JSON body, then a reload or a page
      // named from the answer ("/leagues/{league_id}")
      ev.preventDefault();
      clearError(form);
      var parts = form.dataset.apiForm.split(" ");
      var submit = form.querySelector("button[type=submit]");
      if (submit) submit.disabled = true;
      api(parts[0], parts[1], collect(form)).then(function (r) {
        if (submit) submit.disabled = false;
        if (!r.ok) { showError(form, r.data); return; }
        var then = form.dataset.then;
        if (then === "reload") { location.reload(); return; }
        if (then === "ok") {
          form.reset();
          var ok = form.querySelector("[data-ok]");
          if (ok) ok.textContent = form.dataset.okText || "Saved.";
          return;
        }
        location.assign(then.replace(/\{(\w+)\}/g, function (_, key) { return encodeURIComponent(r.data[key]); }));
      });
      return;
    }
  });

  function watchMe(url) {
    if (!window.EventSource) return;
    var es = new EventSource(url);
    var failures = 0;
    es.addEventListener("notification", function (e) {
      failures = 0;
      var d = JSON.parse(e.data);
      var here = document.getElementById("game-page");
      var onThisGame = here && d.game_id === here.dataset.gameId;
      if (!onThisGame) notify(d.text || d.kind, d.game_id ? "/games/" + d.game_id : null);
      if (document.getElementById("lobby")) refresh("lobby");
    });
    es.onopen = function () { failures = 0; };
    es.onerror = function () {
      failures += 1;
      if (es.readyState === EventSource.CLOSED || failures > 5) es.close();
    };
  }

  function init() {
    if (upgradeLegacy()) { upgrading = true; return; }
    if (/signin=/.test(location.hash) && document.getElementById("game-page")) {
      history.replaceState(null, "", location.pathname + location.search + "#decide");  // signed in already: the link stays unused
    }
    var el;
    if ((el = document.getElementById("game-page"))) watchGame(el);
    if ((el = document.getElementById("talk")) && document.getElementById("game-page")) initTalk(el);
    if (document.body.dataset.meStream) watchMe(document.body.dataset.meStream);
    // pages.js (every page but the game page) says ready once its own parts are set up
    if (!document.querySelector("script[src^='/static/pages.js']")) document.documentElement.dataset.ready = "true";
  }
  // what the game table's script (table.js) shares with this one
  // and what the other pages' script (pages.js) does
  window.gameledger = {
    api: api, refresh: refresh, liveVersion: liveVersion, setBusy: setBusy, collect: collect,
    errorText: errorText, markOwnMove: function () { ownMove = true; },
    clearError: clearError, showError: showError, forgetLegacy: forgetLegacy, notify: notify, swap: swap,
    upgrading: function () { return upgrading; }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
