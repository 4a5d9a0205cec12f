/* gameledger pages other than the game table: the replay and disputing from it, a dispute's
   ruling, signing up and in, account links and tokens, a new game, the settings. Every page but
   the game page loads it after app.js (the game page keeps to what it needs: app.js and
   table.js), and it uses what app.js shares in window.gameledger. */
(function () {
  "use strict";

  var g = window.gameledger;
  var api = g.api, collect = g.collect, errorText = g.errorText, clearError = g.clearError;
  var showError = g.showError, forgetLegacy = g.forgetLegacy, notify = g.notify, swap = g.swap;
  var MAX_CITABLE = 200;  // the replay's dispute form lists the latest messages of the table talk

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

  function init() {
    if (g.upgrading()) return;
    var el;
    if ((el = document.getElementById("signup-form"))) initSignup(el);
    if ((el = document.getElementById("signin-form"))) initSignin(el);
    if ((el = document.getElementById("token-form"))) initTokenSignin(el);
    if ((el = document.getElementById("recover-form"))) initRecover(el);
    if ((el = document.getElementById("account-link"))) initAccountLink(el);
    if ((el = document.getElementById("mail-link"))) initMailLink(el);
    if ((el = document.getElementById("new-game-form"))) initNewGame(el);
    if ((el = document.getElementById("replay"))) initReplay(el);
    if ((el = document.getElementById("ruling-form"))) initRuling(el);
    if ((el = document.getElementById("dispute-panel")) && document.getElementById("replay-v")) initDisputeFromReplay(el);
    if (document.getElementById("settings")) initSettings();
    document.documentElement.dataset.ready = "true";
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
