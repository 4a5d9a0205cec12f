/* The game table: choose a decision on the board (or in the list in words), see what it will
   do, then confirm it. Every choice is an element the server marked with data-decision (a
   listed decision, sent exactly as listed) or data-decision-template (a listed decision whose
   number the person picks among data-values); nothing else is ever sent. The preview comes
   from POST .../decisions/preview: nothing is stored until the confirm button (data-confirm).
   Enter confirms, Escape cancels. Uses app.js's helpers (window.gameledger). */
(function () {
  "use strict";

  var CHOICE = "[data-decision], [data-decision-template]";
  var current = null;  // {decision, el, seq}
  var seq = 0;
  var timer = null;

  function gl() { return window.gameledger; }
  function page() { return document.getElementById("game-page"); }
  function panel() { return document.getElementById("preview"); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function nameOf(target) {
    // a thing on the board: its tooltip (its name begins with the words it shows, for speech input)
    var tip = target.parentNode && target.parentNode.querySelector && target.parentNode.querySelector(":scope > title");
    if (tip && target.classList && target.classList.contains("act")) return tip.textContent;
    return target.getAttribute("aria-label") || target.textContent.trim();
  }
  function values(target) {
    return (target.dataset.values || "").split(",").filter(Boolean).map(Number);
  }

  // --- menus: several decisions on one drawn thing ---------------------------------------
  function closeMenus(except) {
    document.querySelectorAll(".menu-pop:not([hidden])").forEach(function (m) {
      if (m === except) return;
      m.hidden = true;
      var opener = document.querySelector("[aria-controls='" + m.id + "']");
      if (opener) opener.setAttribute("aria-expanded", "false");
    });
  }
  function openMenu(opener) {
    var menu = document.getElementById(opener.getAttribute("aria-controls"));
    if (!menu) return;
    closeMenus(menu);
    var wrap = menu.closest("[data-board]");
    var box = opener.getBoundingClientRect();
    var outer = wrap.getBoundingClientRect();
    menu.hidden = false;
    // in the board's own coordinates (it scrolls sideways at full size); above the thing it
    // opens on where there is no room below it on the board
    var left = Math.min(box.left - outer.left + wrap.scrollLeft, wrap.scrollWidth - menu.offsetWidth - 4);
    var top = box.bottom - outer.top + 4;
    if (top + menu.offsetHeight > wrap.clientHeight && box.top - outer.top - menu.offsetHeight - 4 >= 0) {
      top = box.top - outer.top - menu.offsetHeight - 4;
    }
    menu.style.left = Math.max(0, left) + "px";
    menu.style.top = top + "px";
    opener.setAttribute("aria-expanded", "true");
    var first = menu.querySelector("button");
    if (first) first.focus();
  }

  // --- choosing and previewing --------------------------------------------------------------
  function decisionOf(target, amount) {
    if (target.dataset.decision) return JSON.parse(target.dataset.decision);
    var d = JSON.parse(target.dataset.decisionTemplate);
    d[target.dataset.field] = amount;
    return d;
  }
  function choose(target, started) {
    var p = panel();
    if (!p) return;
    closeMenus();
    document.querySelectorAll(".chosen").forEach(function (c) { c.classList.remove("chosen"); });
    if (target.classList) target.classList.add("chosen");
    p.textContent = "";
    p.hidden = false;
    var heading = el("h3", "", nameOf(target));
    heading.tabIndex = -1;
    p.appendChild(heading);
    var amount = null;
    if (target.dataset && target.dataset.decisionTemplate) {
      var allowed = values(target);
      var field = el("div", "field");
      var said = target.closest && target.closest("[data-amount-label]");  // its own, or its menu's
      var label = el("label", "", (said && said.dataset.amountLabel) || target.dataset.field);
      label.htmlFor = "preview-amount";
      var input = el("input");
      input.type = "number";
      input.id = "preview-amount";
      input.min = target.dataset.min;
      input.max = target.dataset.max;
      input.step = "1";
      input.inputMode = "numeric";
      var start = JSON.parse(target.dataset.decisionTemplate)[target.dataset.field];
      input.value = String(start);
      var hint = el("p", "hint", "Allowed: " + allowed.join(", "));
      hint.id = "preview-amount-hint";
      input.setAttribute("aria-describedby", hint.id);
      field.appendChild(label);
      field.appendChild(input);
      field.appendChild(hint);
      p.appendChild(field);
      amount = input;
      input.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(function () { preview(target, amount); }, 120);
      });
    }
    var body = el("div", "preview-body", "Working out what it will do…");
    body.setAttribute("aria-live", "polite");
    p.appendChild(body);
    var buttons = el("div", "buttons");
    var confirm = el("button", "confirm", "Confirm");
    confirm.type = "button";
    confirm.setAttribute("data-confirm", "");
    confirm.disabled = true;
    var cancel = el("button", "cancel", "Cancel");
    cancel.type = "button";
    cancel.setAttribute("data-cancel", "");
    buttons.appendChild(confirm);
    buttons.appendChild(cancel);
    p.appendChild(buttons);
    p.appendChild(el("p", "error", ""));
    current = { target: target, amount: amount, started: started || performance.now() };
    sheetFolded(false);
    if (PHONE.matches) p.closest("#decide").scrollTop = 0; else p.scrollIntoView({ block: "nearest" });
    preview(target, amount);
    if (amount) amount.focus(); else p.querySelector("h3").focus();
  }
  function chooseDecision(decision, label) {
    // a decision written in the power users' form: previewed the same way
    var fake = { dataset: { decision: JSON.stringify(decision) }, textContent: label, getAttribute: function () { return null; } };
    choose(fake);
  }
  function money(n, currency) {  // pounds unless the money changed in pence or shillings (Cotton Trade)
    var sign = n < 0 ? "−" : "", a = Math.abs(n);
    return currency === "pence" ? sign + a + "d" : currency === "shillings" ? sign + a + "s" : sign + "£" + a;
  }
  function preview(target, amount) {
    var p = panel();
    var body = p && p.querySelector(".preview-body");
    if (!body || !current) return;  // the table was swapped in anew meanwhile
    var confirm = p.querySelector("[data-confirm]");
    var error = p.querySelector(".error");
    error.textContent = "";
    delete p.dataset.amount;
    var value = amount ? Number(amount.value) : null;
    if (amount && values(target).indexOf(value) < 0) {
      confirm.disabled = true;
      body.textContent = "Choose one of: " + values(target).join(", ") + ".";
      return;
    }
    if (!current) return;
    var decision = decisionOf(target, value);
    current.decision = decision;
    var mine = ++seq;
    confirm.disabled = true;
    var started = current.started;
    gl().api("POST", "/api/v1/games/" + page().dataset.gameId + "/decisions/preview",
      { expected_version: gl().liveVersion(), decision: decision }).then(function (r) {
      if (mine !== seq || !current || !document.contains(body)) return;
      body.textContent = "";
      if (!r.ok) {
        error.textContent = gl().errorText(r.data);
        if (r.status === 409) gl().refresh();
        return;
      }
      show(body, r.data);
      confirm.disabled = false;
      if (!amount || document.activeElement !== amount) confirm.focus();
      var ms = Math.round(performance.now() - started);
      p.dataset.previewMs = String(ms);
      if (amount) p.dataset.amount = String(value);  // which number this preview shows
      current.started = performance.now();
    });
  }
  function show(body, d) {
    if (d.reveal) body.appendChild(el("p", "notice", d.reveal));
    else {
      var c = d.cost.currency;
      var cost = d.cost.change < 0 ? "It costs you " + money(d.cost.paid, c) : d.cost.change > 0 ? "You receive " + money(d.cost.received, c) : "It costs nothing";
      if (d.cost.balance !== null && d.cost.balance !== undefined) cost += "; cash afterwards " + money(d.cost.balance, c);
      body.appendChild(el("p", "cost", cost + "."));
    }
    if (d.log.length) {
      var list = el("ul", "effects");
      d.log.forEach(function (line) { list.appendChild(el("li", "", line)); });
      body.appendChild(list);
    }
    if (d.draw) body.appendChild(el("p", "notice", d.draw.text));
    var moved = d.share_values.filter(function (s) { return s.before !== s.after; });
    if (moved.length) {
      body.appendChild(el("p", "", "Share values: " + moved.map(function (s) {
        return (s.name || "seat " + s.seat) + " " + money(s.before, s.currency) + " → " + money(s.after, s.currency);
      }).join(", ") + "."));
    }
    if (d.scoreboard && d.scoreboard.length && !d.reveal) {
      var table = el("table", "compact after");
      var cap = el("caption", "", "Scoreboard afterwards");
      table.appendChild(cap);
      var head = el("tr");
      ["Rank", "Player", "Cash", "Portfolio"].forEach(function (h) { var th = el("th", "", h); th.scope = "col"; head.appendChild(th); });
      var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
      var tbody = el("tbody");
      d.scoreboard.forEach(function (s) {
        var tr = el("tr");
        tr.appendChild(el("td", "", String(s.rank)));
        var th = el("th", "", s.name || "seat " + s.seat); th.scope = "row"; tr.appendChild(th);
        var cash = s.cash !== undefined ? s.cash : s.money;  // Cotton Trade: money in the stage's coins
        tr.appendChild(el("td", "", cash !== undefined ? money(cash, d.currency) : ""));
        tr.appendChild(el("td", "", s.portfolio_value !== undefined ? money(s.portfolio_value, s.share_currency || d.currency) : ""));
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      body.appendChild(table);
    }
    if (!d.reveal && !d.draw) {
      var next = d.finished ? "Then the game ends." : d.prompt ? "Then: " + d.prompt + "." : "";
      if (next) body.appendChild(el("p", "hint", next));
    }
  }
  function cancel() {
    var p = panel();
    if (p) { p.hidden = true; p.textContent = ""; }
    document.querySelectorAll(".chosen").forEach(function (c) { c.classList.remove("chosen"); });
    var target = current && current.target;
    current = null;
    seq++;
    if (target && target.focus && document.contains(target)) target.focus();
  }
  function confirm() {
    var p = panel();
    var button = p && p.querySelector("[data-confirm]");
    if (!current || !current.decision || !button || button.disabled) return;
    var error = p.querySelector(".error");
    gl().setBusy(true);
    gl().api("POST", "/api/v1/games/" + page().dataset.gameId + "/decisions",
      { expected_version: gl().liveVersion(), decision: current.decision }).then(function (r) {
      if (!r.ok) {
        gl().setBusy(false);
        error.textContent = gl().errorText(r.data);
        error.setAttribute("tabindex", "-1");
        error.focus();
        if (r.status === 409) gl().refresh();
        return;
      }
      current = null;
      gl().markOwnMove();
      return gl().refresh().then(function () {
        var heading = document.getElementById("now-heading");
        if (heading && (!document.activeElement || document.activeElement === document.body)) heading.focus({ preventScroll: PHONE.matches });
        offerNextGame();
      });
    });
  }

  // --- the board's size: fitted to the column, or at full size (remembered on this device) ----
  var SIZE_KEY = "gameledger.board-size";
  function boardSize(full) {
    document.documentElement.classList.toggle("board-full", full);
    document.querySelectorAll("[data-board-size]").forEach(function (holder) {
      holder.hidden = false;  // the control needs this script: hidden without it
      holder.querySelector("button").setAttribute("aria-pressed", full ? "true" : "false");
    });
  }
  function storedSize() {
    try { return window.localStorage.getItem(SIZE_KEY) === "full"; } catch (e) { return false; }
  }
  function initBoardSize() { boardSize(storedSize()); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initBoardSize);
  else initBoardSize();
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest && ev.target.closest("[data-board-size] button");
    if (!button) return;
    var full = button.getAttribute("aria-pressed") !== "true";
    try { window.localStorage.setItem(SIZE_KEY, full ? "full" : "fit"); } catch (e) { /* kept for this page only */ }
    closeMenus();
    boardSize(full);
  });

  // --- a phone: the board's window on the marked decisions, the sheet, the next game ----------
  var PHONE = window.matchMedia("(max-width: 43.75rem)");
  var pointedAt = -1;
  function marked() { return [].slice.call(document.querySelectorAll("#live .board-svg .act")); }
  function whole() { return document.documentElement.classList.contains("board-whole"); }
  function scrollBoardTo(things) {  // all of them in the board's window where they fit, else the first
    var wrap = document.querySelector("#live .board-wrap");
    if (!wrap || !things.length) return;
    function box(list) {
      return list.map(function (t) { return t.getBoundingClientRect(); }).reduce(function (b, r) {
        return { left: Math.min(b.left, r.left), top: Math.min(b.top, r.top), right: Math.max(b.right, r.right), bottom: Math.max(b.bottom, r.bottom) };
      });
    }
    var b = box(things), o = wrap.getBoundingClientRect();
    if (b.right - b.left > wrap.clientWidth || b.bottom - b.top > wrap.clientHeight) b = box([things[0]]);
    wrap.scrollLeft += (b.left + b.right - wrap.clientWidth) / 2 - o.left;
    wrap.scrollTop += (b.top + b.bottom - wrap.clientHeight) / 2 - o.top;
  }
  function phoneTable() {
    var show = document.querySelector("[data-show-marked]"), things = marked();
    if (show) show.hidden = !things.length;
    pointedAt = -1;
    document.querySelectorAll("[data-whole-board]").forEach(function (b) { b.setAttribute("aria-pressed", String(whole())); });
    if (PHONE.matches && !whole()) scrollBoardTo(things);
  }
  function pointAtNext() {  // "Next marked place": outlined, in the board's window, focused
    var things = marked();
    if (!things.length) return;
    document.querySelectorAll(".pointed").forEach(function (t) { t.classList.remove("pointed"); });
    var thing = things[pointedAt = (pointedAt + 1) % things.length];
    thing.classList.add("pointed");
    if (whole()) thing.scrollIntoView({ block: "center" }); else scrollBoardTo([thing]);
    thing.focus({ preventScroll: true });
  }
  var TITLES = { "water-frame": "Water Frame", "arkwright-card-game": "The Card Game", "cotton-trade": "Cotton Trade" };
  function offerNextGame() {  // one's own move made and this game waits on others: the next game waiting
    var box = document.getElementById("next-game");
    if (!box || document.getElementById("decide")) return;
    gl().api("GET", box.dataset.waitingUrl).then(function (r) {
      if (!r.ok) return;
      var here = page().dataset.gameId;
      var games = (r.data.games || []).filter(function (g) { return g.game_id !== here; });
      box.textContent = "";
      box.appendChild(el("p", "", "Your move is in. " + (!games.length ? "No other game waits on you." :
        games.length === 1 ? "One more game waits on you." : games.length + " more games wait on you.")));
      if (games.length) {
        var go = el("a", "button", "Next game: " + (TITLES[games[0].title] || games[0].title) + " " + games[0].game_id.slice(0, 8));
        go.href = "/games/" + games[0].game_id + "#decide";
        go.setAttribute("data-next-game-offer", "");
        box.appendChild(go);
      }
      var close = el("button", "link-button", "Close");
      close.type = "button";
      close.setAttribute("data-close-offer", "");
      box.appendChild(close);
      box.hidden = false;
    });
  }
  function watchTable() {
    var root = page();
    if (!root) return;
    phoneTable();
    new MutationObserver(function (changes) {
      if (!changes.some(function (c) { return [].some.call(c.addedNodes, function (n) { return n.id === "live"; }); })) return;
      var box = document.getElementById("next-game");
      if (box && document.getElementById("decide")) box.hidden = true;  // a new turn here
      phoneTable();
    }).observe(root, { childList: true });
    PHONE.addEventListener("change", phoneTable);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchTable);
  else watchTable();
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!t.closest || !page()) return;
    if (t.closest("[data-whole-board]")) { document.documentElement.classList.toggle("board-whole"); closeMenus(); phoneTable(); return; }
    if (t.closest("[data-show-marked]")) { pointAtNext(); return; }
    if (t.closest("[data-close-offer]")) { document.getElementById("next-game").hidden = true; return; }
    var fold = t.closest("[data-sheet-toggle]");
    if (fold) sheetFolded(fold.getAttribute("aria-expanded") === "true");
  });
  function sheetFolded(folded) {
    var sheet = document.getElementById("decide"), fold = sheet && sheet.querySelector("[data-sheet-toggle]");
    if (!fold) return;
    sheet.classList.toggle("folded", folded);
    fold.setAttribute("aria-expanded", String(!folded));
    fold.textContent = folded ? "Draw up" : "Fold away";
  }

  // --- events (delegated: the table is swapped in on every change) ------------------------
  document.addEventListener("click", function (ev) {
    if (!page()) return;
    var t = ev.target;
    if (t.closest("[data-confirm]")) { ev.preventDefault(); confirm(); return; }
    if (t.closest("[data-cancel]")) { ev.preventDefault(); cancel(); return; }
    if (t.closest("[data-menu-close]")) { ev.preventDefault(); closeMenus(); return; }
    var opener = t.closest(".act.menu");
    if (opener) { ev.preventDefault(); openMenu(opener); return; }
    var target = t.closest(CHOICE);
    if (target && !target.disabled) { ev.preventDefault(); choose(target, performance.now()); return; }
    if (!t.closest(".menu-pop")) closeMenus();
  }, true);
  document.addEventListener("keydown", function (ev) {
    if (!page()) return;
    var t = ev.target;
    var act = t.closest && t.closest(".act[role=button]");
    if (act && (ev.key === "Enter" || ev.key === " ")) {
      ev.preventDefault();
      if (act.classList.contains("menu")) openMenu(act); else choose(act, performance.now());
      return;
    }
    if (ev.key === "Escape") {
      var menu = t.closest && t.closest(".menu-pop");
      if (menu) {
        var opener = document.querySelector("[aria-controls='" + menu.id + "']");
        closeMenus();
        if (opener) opener.focus();
        return;
      }
      if (current) { ev.preventDefault(); cancel(); }
      return;
    }
    if (ev.key === "Enter" && current && !(t.tagName === "BUTTON" && !t.hasAttribute("data-confirm"))) {
      ev.preventDefault();
      confirm();
    }
  });
  // the power users' forms: fetched when "Write a decision yourself" first opens (a page swapped
  // in by a refresh reopens it, and fetches the new position's)
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!d.open || !d.matches || !d.matches("details[data-forms]") || d.dataset.loaded) return;
    d.dataset.loaded = "1";
    var status = d.querySelector("[data-forms-status]");
    if (status) status.textContent = "Loading the forms\u2026";
    fetch(d.dataset.forms, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : Promise.reject(res.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        if (status) status.remove();
        Array.prototype.slice.call(doc.body.childNodes).forEach(function (n) { d.appendChild(document.adoptNode(n)); });
        d.setAttribute("data-forms-loaded", "");
      }, function () {
        delete d.dataset.loaded;
        if (status) status.textContent = "The forms did not load: close and open this again.";
      });
  }, true);
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!page() || !form.classList.contains("decision")) return;
    ev.preventDefault();
    ev.stopPropagation();
    var decision;
    try {
      decision = gl().collect(form);
    } catch (e) {
      var box = document.querySelector("#decide [data-error]");
      if (box) box.textContent = "request/invalid: A field does not hold valid JSON: " + e.message;
      return;
    }
    decision.type = form.dataset.type;
    chooseDecision(decision, form.getAttribute("aria-label") || "Your decision");
  }, true);
})();
