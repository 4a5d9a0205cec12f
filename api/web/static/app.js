/* gameledger pages: calls to the REST API, live updates and the replay.
   Pages are complete on the server; this script sends state-changing calls signed in by the
   HttpOnly session cookie, each with the page's anti-forgery proof (X-CSRF-Token: a page of
   another site can neither read nor make it), and swaps in the re-rendered part of a page when
   the game changes. A browser that still holds a token from the older pages (localStorage and a
   gl_token cookie) trades it for a session once. */
(function () {
  "use strict";

  var LEGACY = "gl_token";
  var MAX_CITABLE = 200;  // the replay's dispute form lists the latest messages of the table talk
  var POLL_MS = 3000;

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

  // --- the replay ---------------------------------------------------------------------------
  function initReplay(root) {
    var slider = document.getElementById("replay-v");
    var out = document.getElementById("replay-out");
    var last = Number(root.dataset.last);
    var timer = null;
    var seq = 0;
    function label(v) { out.textContent = v + " of " + last; }
    function links(v) {
      document.getElementById("replay-prev").href = "?v=" + Math.max(1, v - 1);
      document.getElementById("replay-next").href = "?v=" + Math.min(last, v + 1);
      document.getElementById("replay-prev").setAttribute("aria-disabled", v <= 1 ? "true" : "false");
      document.getElementById("replay-next").setAttribute("aria-disabled", v >= last ? "true" : "false");
    }
    function show(v) {
      v = Math.min(last, Math.max(1, v));
      slider.value = String(v);
      label(v);
      links(v);
      var url = location.pathname + "?v=" + v;
      history.replaceState(null, "", url);
      root.dispatchEvent(new CustomEvent("replay-shown", { detail: { v: v } }));
      var mine = ++seq;
      return fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (res) { return res.ok ? res.text() : null; })
        .then(function (html) {
          if (!html || mine !== seq) return;
          swap(new DOMParser().parseFromString(html, "text/html"), "replay-live");
        });
    }
    links(Number(slider.value));
    slider.addEventListener("input", function () {
      label(slider.value);
      clearTimeout(timer);
      timer = setTimeout(function () { show(Number(slider.value)); }, 120);
    });
    root.querySelectorAll("[data-step]").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault();
        var step = a.dataset.step;
        var v = Number(slider.value);
        show(step === "first" ? 1 : step === "last" ? last : v + Number(step));
      });
    });
  }

  // --- disputing from the replay: the events selected while stepping, the talk picked to cite ---
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "k" + Date.now().toString(36) + Math.random().toString(36).slice(2);
  }
  function initDisputeFromReplay(panel) {
    var slider = document.getElementById("replay-v");
    var root = document.getElementById("replay");
    var button = document.getElementById("dispute-select");
    var list = document.getElementById("dispute-selected");
    var form = document.getElementById("dispute-form");
    var chosen = panel.dataset.preselect ? [Number(panel.dataset.preselect)] : [];
    var key = null;  // one Idempotency-Key for the dispute being written: a second press sends the same
    function render() {
      var v = Number(slider.value);
      var on = chosen.indexOf(v) >= 0;
      button.textContent = (on ? "Remove event " + v + " from" : "Add event " + v + " to") + " the dispute";
      button.dataset.version = String(v);
      list.textContent = "";
      var p = document.createElement("p");
      if (!chosen.length) {
        p.className = "muted";
        p.textContent = "No event selected yet: step to the event in question and add it.";
        list.appendChild(p);
        return;
      }
      p.textContent = "In the dispute: ";
      chosen.slice().sort(function (a, b) { return a - b; }).forEach(function (x, i) {
        if (i) p.appendChild(document.createTextNode(", "));
        var a = document.createElement("a");
        a.href = "?v=" + x;
        a.textContent = "event " + x;
        a.dataset.goto = String(x);
        p.appendChild(a);
      });
      list.appendChild(p);
    }
    button.addEventListener("click", function () {
      var v = Number(slider.value);
      var at = chosen.indexOf(v);
      if (at >= 0) chosen.splice(at, 1); else chosen.push(v);
      key = null;
      render();
    });
    list.addEventListener("click", function (ev) {
      var a = ev.target.closest("[data-goto]");
      if (!a) return;
      ev.preventDefault();
      slider.value = a.dataset.goto;
      slider.dispatchEvent(new Event("input"));
    });
    slider.addEventListener("input", render);
    root.addEventListener("replay-shown", render);
    var cite = form.querySelector("[data-talk-url]");
    var loaded = false;
    function loadTalk() {
      // the table talk to cite, newest first: each message a box to tick (its text as text, never markup)
      if (loaded || !panel.open) return;
      loaded = true;
      api("GET", cite.dataset.talkUrl).then(function (r) {
        var holder = cite.querySelector("[data-cite-list]");
        holder.textContent = "";
        var messages = r.ok ? r.data.messages.slice().reverse().slice(0, MAX_CITABLE) : [];
        if (!r.ok) { loaded = false; holder.textContent = errorText(r.data); return; }
        if (!messages.length) {
          var none = document.createElement("p");
          none.className = "muted";
          none.textContent = "The table has said nothing yet.";
          holder.appendChild(none);
        }
        messages.forEach(function (m) {
          var div = document.createElement("div");
          div.className = "field check cite-message";
          var box = document.createElement("input");
          box.type = "checkbox";
          box.id = "cite-" + Number(m.number);
          box.value = String(Number(m.number));
          var label = document.createElement("label");
          label.htmlFor = box.id;
          var who = document.createElement("span");
          who.className = "who";
          who.textContent = m.name;
          var meta = document.createElement("span");
          meta.className = "muted";
          meta.textContent = " · message " + Number(m.number) + " · at version " + Number(m.game_version);
          var text = document.createElement("span");
          text.className = m.hidden ? "muted text" : "text";
          text.textContent = m.hidden ? "(hidden by the operator: " + m.hidden.reason + ")" : m.text;
          label.appendChild(who);
          label.appendChild(meta);
          label.appendChild(text);
          div.appendChild(box);
          div.appendChild(label);
          holder.appendChild(div);
        });
        if (r.data.count > MAX_CITABLE) {
          var more = document.createElement("p");
          more.className = "hint";
          more.textContent = "The latest " + MAX_CITABLE + " messages; the older ones are in the game's talk.";
          holder.appendChild(more);
        }
      });
    }
    panel.addEventListener("toggle", loadTalk);
    loadTalk();
    form.addEventListener("input", function () { key = null; });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      if (!chosen.length) { showError(form, { message: "Add the event in question first (step to it and press the button above)." }); return; }
      var text = document.getElementById("dispute-text").value;
      if (!text.trim()) { showError(form, { message: "Say what is wrong." }); return; }
      var cited = Array.prototype.filter.call(form.querySelectorAll(".cite input[type=checkbox]"), function (b) { return b.checked; })
        .map(function (b) { return Number(b.value); });
      key = key || newKey();
      var submit = form.querySelector("button[type=submit]");
      submit.disabled = true;
      var body = { versions: chosen.slice().sort(function (a, b) { return a - b; }), text: text, messages: cited };
      api("POST", panel.dataset.url, body, { "Idempotency-Key": key }).then(function (r) {
        submit.disabled = false;
        if (!r.ok) { showError(form, r.data); return; }
        location.assign(r.data.url);
      });
    });
    render();
  }

  // --- a dispute's page: the rulings, the rewind point picked on a slider like the replay's ---
  function eventWords(v, gid, into, seq) {
    // the event's words as the replay says them (the server's own escaped list, never markup typed here)
    return fetch("/games/" + gid + "/replay?v=" + v, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (!html || !seq()) return;
        var list = new DOMParser().parseFromString(html, "text/html").querySelector("#replay-live ul.log");
        into.textContent = "";
        if (list) into.appendChild(document.importNode(list, true));
      });
  }
  function initRuling(form) {
    var gid = form.dataset.gameId;
    var rewind = form.querySelector("[data-rewind]");
    var slider = document.getElementById("rewind-to");
    var out = document.getElementById("rewind-out");
    var words = document.getElementById("rewind-words");
    var link = document.getElementById("rewind-replay");
    var timer = null;
    var seq = 0;
    function outcome() {
      var c = form.querySelector("input[name=outcome]:checked");
      return c ? c.value : null;
    }
    function update() { if (rewind) rewind.hidden = outcome() !== "correction"; }
    form.querySelectorAll("input[name=outcome]").forEach(function (r) { r.addEventListener("change", update); });
    update();
    if (slider) {
      slider.addEventListener("input", function () {
        var v = Number(slider.value);
        out.textContent = "event " + v;
        link.href = "/games/" + gid + "/replay?v=" + v;
        clearTimeout(timer);
        timer = setTimeout(function () {
          var mine = ++seq;
          eventWords(v, gid, words, function () { return mine === seq; });
        }, 150);
      });
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      var body = { outcome: outcome(), note: document.getElementById("ruling-note").value };
      if (body.outcome === "correction" && slider) body.rewind_to = Number(slider.value);
      var submit = form.querySelector("button[type=submit]");
      submit.disabled = true;
      api("POST", form.dataset.url, body).then(function (r) {
        submit.disabled = false;
        if (!r.ok) { showError(form, r.data); return; }
        location.reload();
      });
    });
  }

  // --- sign up, sign in, account links, settings -------------------------------------------
  function safeNext(next) {
    return next && /^\/(?![\/\\])[\w\-.\/?=&%]*$/.test(next) ? next : "/lobby";
  }
  function value(form, selector) {
    var el = form.querySelector(selector);
    return el ? el.value.trim() : "";
  }
  function initSignup(form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      var name = value(form, "#signup-name");
      if (!name) { showError(form, { message: "Please give a name." }); return; }
      var body = { name: name };
      var email = value(form, "#signup-email");
      var password = form.querySelector("#signup-password").value;
      if (email) body.email = email;
      if (password) body.password = password;
      api("POST", "/api/v1/players", body).then(function (r) {
        if (!r.ok) { showError(form, r.data); return; }
        var created = r.data;
        forgetLegacy();
        api("POST", "/api/v1/sessions", { token: created.token }).then(function (s) {
          if (!s.ok) { showError(form, s.data); return; }
          var done = document.getElementById("signup-done");
          done.querySelector("[data-name]").textContent = created.name;
          done.querySelector("#signup-token").value = created.token;
          if (created.pending_email) {
            done.querySelector("[data-email]").textContent = created.pending_email;
            done.querySelector("[data-mailed]").hidden = false;
          }
          done.querySelector("[data-continue]").href = safeNext(form.dataset.next);
          form.hidden = true;
          done.hidden = false;
          done.querySelector("h3").focus();
        });
      });
    });
  }
  function signIn(form, body) {
    clearError(form);
    var submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    api("POST", "/api/v1/sessions", body).then(function (r) {
      submit.disabled = false;
      if (!r.ok) { showError(form, r.data); return; }
      forgetLegacy();
      location.assign(safeNext(form.dataset.next));
    });
  }
  function initSignin(form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      signIn(form, { email: value(form, "#signin-email"), password: form.querySelector("#signin-password").value });
    });
  }
  function initTokenSignin(form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      signIn(form, { token: value(form, "#signin-token") });
    });
  }
  function initRecover(form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      form.querySelector("[data-ok]").textContent = "";
      api("POST", "/api/v1/players/recover", { email: value(form, "#recover-email") }).then(function (r) {
        if (!r.ok) { showError(form, r.data); return; }
        form.querySelector("[data-ok]").textContent = r.data.message;
      });
    });
  }
  function initAccountLink(section) {
    // the token is after "#token=": it never reached the server; take it off the address bar
    var match = location.hash.match(/token=([\w\-]+)/);
    var button = section.querySelector("[data-redeem]");
    if (!match) { section.querySelector("[data-missing]").hidden = false; button.disabled = true; return; }
    var linkToken = match[1];
    history.replaceState(null, "", location.pathname);
    button.addEventListener("click", function () {
      clearError(button);
      button.disabled = true;
      var confirm = section.dataset.kind === "confirm";
      var call = confirm
        ? api("POST", "/api/v1/players/confirm-email", { token: linkToken })
        : api("POST", "/api/v1/sessions", { link: linkToken });
      call.then(function (r) {
        if (!r.ok) { button.disabled = false; showError(button, r.data); return; }
        forgetLegacy();
        var ok = section.querySelector("[data-ok]");
        ok.textContent = confirm
          ? r.data.email + " is now the confirmed address of " + r.data.name + "."
          : "You are signed in as " + r.data.name + ". Set a new password in your settings if you have lost yours.";
        button.hidden = true;
        section.querySelector("[data-done]").hidden = false;
        ok.focus();
      });
    });
  }
  function initMailLink(section) {
    // a "your turn" mail's link that signs in (#decide&signin=glk_...), brought here from the game
    // by the sign-in redirect: one tap signs in and opens the game; the token leaves the address bar
    var match = location.hash.match(/signin=([\w\-]+)/);
    if (!match) return;
    var linkToken = match[1];
    history.replaceState(null, "", location.pathname + location.search);
    section.hidden = false;
    var button = section.querySelector("[data-mail-signin]");
    button.addEventListener("click", function () {
      clearError(button);
      button.disabled = true;
      api("POST", "/api/v1/sessions", { link: linkToken }).then(function (r) {
        if (!r.ok) {
          showError(button, r.data);
          var more = section.querySelector("[data-error]");
          if (more) more.textContent += " Sign in below instead.";
          return;
        }
        forgetLegacy();
        location.href = section.dataset.next + "#decide";
      });
    });
    button.focus();
  }
  function initTokenForm(form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      api("POST", "/api/v1/me/tokens", { name: value(form, "#token-name") }).then(function (r) {
        if (!r.ok) { showError(form, r.data); return; }
        var shown = form.querySelector("[data-new-token]");
        shown.querySelector("#token-value").value = r.data.token;
        shown.hidden = false;
        var row = document.createElement("tr");
        row.dataset.tokenId = r.data.token_id;
        [r.data.name, "just now", ""].forEach(function (text) {
          var td = document.createElement("td");
          td.textContent = text;
          row.appendChild(td);
        });
        var tbody = document.querySelector("#tokens tbody");
        if (tbody) tbody.appendChild(row);
        form.querySelector("#token-name").value = "";
      });
    });
  }
  function signOut() {
    var done = function () { forgetLegacy(); location.assign("/signup"); };
    if (document.body.dataset.session === "true") api("DELETE", "/api/v1/me/sessions/current").then(done);
    else done();
  }
  function initNewGame(form) {
    var radios = form.querySelectorAll("input[name=title]");
    var seats = form.querySelector("#seats");
    var preset = form.querySelector("#tc-preset");
    var custom = form.querySelector(".custom-clock");
    function chosen() { return form.querySelector("input[name=title]:checked"); }
    function update() {
      var radio = chosen();
      form.querySelectorAll("[data-options-for]").forEach(function (fs) {
        var on = radio && fs.dataset.optionsFor === radio.value;
        fs.hidden = !on;
        fs.disabled = !on;
      });
      if (radio) {
        seats.min = radio.dataset.min;
        seats.max = radio.dataset.max;
        var n = Number(seats.value);
        if (n < Number(radio.dataset.min)) seats.value = radio.dataset.min;
        if (n > Number(radio.dataset.max)) seats.value = radio.dataset.max;
      }
      if (custom) custom.hidden = preset.value !== "custom";
    }
    radios.forEach(function (r) { r.addEventListener("change", update); });
    if (preset) preset.addEventListener("change", update);
    update();
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      var radio = chosen();
      var options = {};
      try {
        var fs = form.querySelector("[data-options-for='" + radio.value + "']");
        if (fs) options = collect(fs);
      } catch (e) { showError(form, { message: "An option is not valid: " + e.message }); return; }
      var body = { title: radio.value, seats: Number(seats.value), options: options };
      var league = form.querySelector("#league").value.trim();
      if (league) body.league = league;
      var priv = form.querySelector("#private"), invite = form.querySelector("#invite");  // issue 31: invitations
      if (priv && priv.checked) body.private = true;
      if (invite && invite.value.trim()) body.invite = invite.value.split(/\s*[,;\n]\s*/).filter(Boolean);
      var tc = form.querySelector("fieldset.time-control");
      if (tc && !tc.disabled && preset.value !== "none") {
        body.time_control = { preset: preset.value, on_expiry: form.querySelector("#tc-expiry").value };
        if (preset.value === "custom") {
          body.time_control.initial_hours = Number(form.querySelector("#tc-initial").value);
          body.time_control.increment_hours = Number(form.querySelector("#tc-increment").value);
          body.time_control.cap_hours = Number(form.querySelector("#tc-cap").value);
        }
      }
      var submit = form.querySelector("button[type=submit]");
      submit.disabled = true;
      api("POST", "/api/v1/games", body).then(function (r) {
        submit.disabled = false;
        if (!r.ok) { showError(form, r.data); return; }
        location.assign("/games/" + r.data.game_id);
      });
    });
  }
  function initSettings() {
    var tokenForm = document.getElementById("token-new-form");
    if (tokenForm) initTokenForm(tokenForm);
    var vacation = document.getElementById("vacation-form");
    if (vacation) vacation.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(vacation);
      var parts = vacation.dataset.apiForm.split(" ");
      api(parts[0], parts[1], collect(vacation)).then(function (r) {
        if (!r.ok) { showError(vacation, r.data); return; }
        location.reload();  // on vacation now: the page offers to end it instead
      });
    });
    var notifications = document.getElementById("notification-form");
    if (notifications) initNotificationSettings(notifications);
  }
  function initNotificationSettings(form) {
    var url = form.dataset.settingsUrl;
    var holder = form.querySelector("[data-settings-fields]");
    function render(d) {
      holder.textContent = "";
      var fs = document.createElement("fieldset");
      var legend = document.createElement("legend");
      legend.textContent = "Notify me about";
      fs.appendChild(legend);
      (d.available_kinds || d.kinds || []).forEach(function (kind, i) {
        var div = document.createElement("div");
        div.className = "field check";
        var input = document.createElement("input");
        input.type = "checkbox";
        input.id = "notify-kind-" + i;
        input.value = kind;
        input.dataset.kind = "notification";
        input.checked = (d.kinds || []).indexOf(kind) >= 0;
        var label = document.createElement("label");
        label.htmlFor = input.id;
        label.textContent = kind.replace(/_/g, " ");
        div.appendChild(input);
        div.appendChild(label);
        fs.appendChild(div);
      });
      holder.appendChild(fs);
      var hook = document.createElement("div");
      hook.className = "field";
      hook.innerHTML = '<label for="notify-webhook">Webhook address (optional)</label>' +
        '<input id="notify-webhook" type="url" maxlength="500" placeholder="https://…">' +
        '<p class="hint">Notifications are also POSTed there, signed with a secret shown once.</p>';
      hook.querySelector("input").value = d.webhook_url || "";
      holder.appendChild(hook);
      var secret = document.createElement("div");
      secret.className = "field check";
      secret.innerHTML = '<input id="notify-new-secret" type="checkbox"><label for="notify-new-secret">Issue a new signing secret</label>';
      holder.appendChild(secret);
      if (d.webhook_secret) {
        var shown = document.createElement("p");
        shown.className = "ok";
        shown.textContent = "Your new signing secret (shown once): " + d.webhook_secret;
        holder.appendChild(shown);
      }
    }
    api("GET", url).then(function (r) {
      if (!r.ok) { holder.textContent = errorText(r.data); return; }
      render(r.data);
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      clearError(form);
      var kinds = Array.prototype.filter.call(form.querySelectorAll("input[data-kind=notification]"), function (i) { return i.checked; })
        .map(function (i) { return i.value; });
      var hook = form.querySelector("#notify-webhook");
      var body = {
        kinds: kinds,
        webhook_url: hook && hook.value.trim() ? hook.value.trim() : null,
        new_secret: !!(form.querySelector("#notify-new-secret") || {}).checked
      };
      api("PUT", url, body).then(function (r) {
        if (!r.ok) { showError(form, r.data); return; }
        render(r.data);
        form.querySelector("[data-ok]").textContent = "Saved.";
      });
    });
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
    if (upgradeLegacy()) return;
    var el;
    if ((el = document.getElementById("signup-form"))) initSignup(el);
    if ((el = document.getElementById("signin-form"))) initSignin(el);
    if ((el = document.getElementById("token-form"))) initTokenSignin(el);
    if ((el = document.getElementById("recover-form"))) initRecover(el);
    if ((el = document.getElementById("account-link"))) initAccountLink(el);
    if ((el = document.getElementById("mail-link"))) initMailLink(el);
    if (/signin=/.test(location.hash) && document.getElementById("game-page")) {
      history.replaceState(null, "", location.pathname + location.search + "#decide");  // signed in already: the link stays unused
    }
    if ((el = document.getElementById("new-game-form"))) initNewGame(el);
    if ((el = document.getElementById("game-page"))) watchGame(el);
    if ((el = document.getElementById("talk")) && document.getElementById("game-page")) initTalk(el);
    if ((el = document.getElementById("replay"))) initReplay(el);
    if ((el = document.getElementById("ruling-form"))) initRuling(el);
    if ((el = document.getElementById("dispute-panel")) && document.getElementById("replay-v")) initDisputeFromReplay(el);
    if (document.getElementById("settings")) initSettings();
    if (document.body.dataset.meStream) watchMe(document.body.dataset.meStream);
    document.documentElement.dataset.ready = "true";
  }
  // what the game table's script (table.js) shares with this one
  window.gameledger = {
    api: api, refresh: refresh, liveVersion: liveVersion, setBusy: setBusy, collect: collect,
    errorText: errorText, markOwnMove: function () { ownMove = true; }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
