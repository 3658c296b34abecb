// VTTBridge — the Roll20 Mod (API) script of vttbridge.
//
// Roll20's Mod sandbox has no network, so this script talks to the vttbridge server through the
// game's own chat and a relay running in the GM's browser tab (the vttbridge Roll20 relay
// userscript):
//
//   - Every token, turn order and chat event the rules need is serialised into a hidden,
//     non-archived whisper to the GM: `<div style="display:none">VTTB1|epoch|seq|i/n|data</div>`
//     (data is URI-encoded JSON, split into chunks when long). The relay reads it from the chat
//     log and forwards it to the bridge.
//   - The relay posts the bridge's commands back as `!vttbridge <URI-encoded JSON>`; this script
//     runs them (`sendChat`, `set` on a graphic (status markers merged with its live ones),
//     `Campaign.set` of the turn order merged with the live order, `watch`, `setStats`: what the
//     rules changed on a character, `budget`: what is left of a token's movement after a drag,
//     whispered to the mover) and answers each with a hidden `result` whisper.
//
// `setStats` writes each stat where it is read from: the token's bar the `bars` setting maps to
// it when the bar is linked (its attribute) or holds a number; else the `<statPrefix><stat>`
// attribute of the character the token represents, created when missing, when the token is the
// character's own (a linked bar, or its only token on the page); else that bar, empty as it is.
// Tokens sharing one character (five goblins) are never given one another's values; a stat with
// nowhere to go is reported as skipped.
//
// GM commands: `!vttbridge --status`, `--help`, `--snapshot`, `--set <key> <value>`, `--reset`.
// Settings live in `state.VTTBridge` with a schema version. Installed from Roll20's one-click
// library, the same settings are options on the script's Mod page (`script.json`'s
// `useroptions`, named as `--set` names them); options saved there are applied at the next start.
//
// Among other scripts: Roll20 fires no event for a script's `set`, so scripts tell each other
// through observers. This script registers with the observers of the scripts GMs use (TokenMod's
// `ObserveTokenChange`, ChatSetAttr's `registerObserver("change")`, and any other named in the
// `observe` setting): their token moves and bar or attribute changes reach the rules like a drag
// or a sheet edit. And it offers its own, `VTTBridge.ObserveTokenChange(fn)`: after each of its
// writes to a token (a move the rules made or put back, a held move put back or completed, a bar
// or a status marker) it calls `fn(token, prev)`, `prev` the token's properties before.
//
// Roll20 fires no event for changes a script makes, and has no "before" events. A move that may
// trigger a Ready on its *attempt* (the bridge says which with `watch`) is put back to its `prev`
// position at once and forwarded as `held`; the bridge resolves the Ready, then completes the
// move with a `set` (or not). If nothing comes within `holdTimeout` seconds the move goes through.
/* global on, sendChat, getObj, findObjs, createObj, Campaign, state, playerIsGM, log, TokenMod, ChatSetAttr, globalconfig */
var VTTBridge =
  VTTBridge ||
  (function () {
    "use strict";

    var SCRIPT = "VTTBridge";
    var VERSION = "0.1.0";
    var SCHEMA = 3;
    var MARK = "VTTB1";
    var CHUNK = 3000;
    var UNIT_PX = 70;
    var ADD_SETTLE_MS = 1000;
    var G_FIELDS = [
      "_id", "_type", "_subtype", "_pageid", "represents", "left", "top", "width", "height",
      "rotation", "layer", "name", "controlledby", "bar1_value", "bar1_max", "bar1_link",
      "bar2_value", "bar2_max", "bar2_link", "bar3_value", "bar3_max", "bar3_link",
      "statusmarkers", "lastmove",
    ];
    var WATCHED = [
      "left", "top", "lastmove", "layer", "name", "controlledby", "represents", "statusmarkers",
      "bar1_value", "bar1_max", "bar2_value", "bar2_max", "bar3_value", "bar3_max",
    ];
    var PAGE_FIELDS = [
      "_id", "name", "width", "height", "grid_type", "snapping_increment", "scale_number",
      "scale_units", "diagonaltype", "showgrid",
    ];
    var SETTINGS = {
      chat: { def: "commands", choices: ["commands", "all", "none"],
        help: "which chat lines go to the bridge: ! commands only, all, or none" },
      ignore: { def: ["token-mod", "group-init", "group-init-config", "eot", "pot", "tm",
        "setattr", "modattr", "modbattr", "resetattr", "script", "scriptcard", "scriptcards",
        "cmaster", "ct", "turnmarker", "itsatrapremoteactivate"],
        help: "! commands of other Mod scripts, never sent to the bridge (--set ignore +name / -name)" },
      hold: { def: true, help: "hold moves the bridge watches (Ready on an attempt)" },
      holdTimeout: { def: 30, help: "seconds a held move waits for the bridge" },
      bars: { def: { bar1: "hp" },
        help: "what each bar means: hp (a drop is damage) or a stat name, e.g. bar1=hp,bar2=wounds" },
      statPrefix: { def: "vttb_", help: "character attributes named <prefix><stat> go to the rules" },
      budget: { def: true,
        help: "after an accepted drag in a fight, whisper the mover what is left of the token's movement (walk / run)" },
      observe: { def: ["TokenMod.ObserveTokenChange", "ChatSetAttr.registerObserver:change"],
        help: "other scripts' observers whose changes go to the bridge: Script.Method (Method(fn)) or Script.Method:event (Method(event, fn)); --set observe +Name.Method / -Name.Method" },
    };

    // -- runtime memory (not persisted) ---------------------------------------------------------
    var lastSig = {}; // token id -> signature of the last reported state (no double handling)
    var pendingAdds = {}; // token id -> true while a dropped token settles
    var holdTimers = {};
    var lastTurnorder = null;
    var started = false;
    var observers = []; // other scripts' functions called after our writes to a token
    var observing = []; // the observers of other scripts this script registered with

    // -- state ----------------------------------------------------------------------------------
    function randomId() {
      var s = "";
      for (var i = 0; i < 8; i++) s += "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(Math.random() * 36)];
      return s;
    }

    function defaults() {
      var settings = {};
      Object.keys(SETTINGS).forEach(function (k) {
        settings[k] = JSON.parse(JSON.stringify(SETTINGS[k].def));
      });
      return { version: SCHEMA, epoch: randomId(), outSeq: 0, applied: {}, lastCommandAt: 0,
        settings: settings, watch: emptyWatch(), holds: {}, optionsSaved: 0 };
    }

    function emptyWatch() {
      return { page: null, watches: [], maxHoldMs: null };
    }

    function checkInstall() {
      var s = state[SCRIPT];
      if (!s || typeof s !== "object") {
        state[SCRIPT] = defaults();
        return;
      }
      // migrations, one schema version at a time
      if (!s.version || s.version < 2) {
        // v1 kept one `lastApplied` number; v2 keeps the last applied seq per world
        s.applied = {};
        if (typeof s.lastApplied === "number") s.applied["*"] = s.lastApplied;
        delete s.lastApplied;
        s.holds = s.holds || {};
        s.version = 2;
      }
      if (s.version < 3) {
        // v2 watched a set of cells and a set of tokens; v3 keeps a list of watches
        var old = s.watch || {};
        var w = emptyWatch();
        w.page = old.page || null;
        if (old.cells && Object.keys(old.cells).length) w.watches.push({ cells: old.cells, token: null, exclude: null });
        Object.keys(old.tokens || {}).forEach(function (t) {
          w.watches.push({ cells: null, token: t, exclude: null });
        });
        s.watch = w;
        s.version = 3;
      }
      var d = defaults();
      Object.keys(d).forEach(function (k) {
        if (s[k] === undefined) s[k] = d[k];
      });
      Object.keys(d.settings).forEach(function (k) {
        if (s.settings[k] === undefined) s.settings[k] = d.settings[k];
      });
    }

    function st() {
      return state[SCRIPT];
    }

    // -- encoding -------------------------------------------------------------------------------
    function enc(text) {
      return encodeURIComponent(text).replace(/[!'()*~]/g, function (c) {
        return "%" + c.charCodeAt(0).toString(16).toUpperCase();
      });
    }

    function esc(text) {
      return String(text)
        .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
        .replace(/\[/g, "&#91;").replace(/\]/g, "&#93;").replace(/\{/g, "&#123;")
        .replace(/\}/g, "&#125;").replace(/@/g, "&#64;").replace(/%/g, "&#37;");
    }

    // -- out to the relay -----------------------------------------------------------------------
    function emit(kind, body) {
      var s = st();
      s.outSeq += 1;
      var seq = s.outSeq;
      var data = enc(JSON.stringify({ k: kind, b: body }));
      var n = Math.max(1, Math.ceil(data.length / CHUNK));
      for (var i = 0; i < n; i++) {
        var part = data.slice(i * CHUNK, (i + 1) * CHUNK);
        sendChat(SCRIPT, "/w gm <div style=\"display:none\">" + MARK + "|" + s.epoch + "|" + seq +
          "|" + (i + 1) + "/" + n + "|" + part + "</div>", null, { noarchive: true });
      }
      return s.epoch + "-" + seq;
    }

    function emitEvent(name, payload) {
      return emit("event", { name: name, payload: payload });
    }

    function whisperGM(html) {
      sendChat(SCRIPT, "/w gm " + html, null, { noarchive: true });
    }

    // -- reading objects ------------------------------------------------------------------------
    function pick(obj, fields) {
      var out = {};
      fields.forEach(function (f) {
        var v = obj.get(f);
        if (v !== undefined) out[f] = v;
      });
      return out;
    }

    function pickPrev(prev) {
      var out = {};
      G_FIELDS.forEach(function (f) {
        if (prev[f] !== undefined) out[f] = prev[f];
      });
      return out;
    }

    function graphicJSON(obj) {
      return pick(obj, G_FIELDS);
    }

    function pageGeom(pageid) {
      var page = pageid ? getObj("page", pageid) : null;
      return page ? pick(page, PAGE_FIELDS) : null;
    }

    function cellPx(pageid) {
      var page = pageid ? getObj("page", pageid) : null;
      var inc = page ? Number(page.get("snapping_increment")) : 1;
      return UNIT_PX * (inc > 0 ? inc : 1);
    }

    function signature(g) {
      return WATCHED.map(function (k) {
        return String(g[k]);
      }).join("|");
    }

    function isToken(obj) {
      var layer = obj.get("layer");
      return obj.get("_subtype") === "token" && (layer === "objects" || layer === "gmlayer");
    }

    function tokenEvent(obj, extra) {
      var payload = { obj: graphicJSON(obj), page: pageGeom(obj.get("_pageid")), bars: st().settings.bars };
      Object.keys(extra || {}).forEach(function (k) {
        payload[k] = extra[k];
      });
      return payload;
    }

    // -- snapshot -------------------------------------------------------------------------------
    function snapshot() {
      var campaign = Campaign();
      var pageid = campaign.get("playerpageid");
      var page = pageGeom(pageid) || { _id: pageid || "" };
      var graphics = findObjs({ _type: "graphic", _pageid: pageid }).filter(isToken);
      var charIds = {};
      graphics.forEach(function (g) {
        var r = g.get("represents");
        if (r) charIds[r] = true;
      });
      var prefix = st().settings.statPrefix;
      var characters = Object.keys(charIds).map(function (cid) {
        var c = getObj("character", cid);
        if (!c) return null;
        var stats = {};
        if (prefix) {
          findObjs({ _type: "attribute", _characterid: cid }).forEach(function (a) {
            var name = String(a.get("name") || "");
            if (name.toLowerCase().indexOf(prefix.toLowerCase()) === 0) {
              stats[name.slice(prefix.length)] = a.get("current");
            }
          });
        }
        return { _id: cid, name: c.get("name"), controlledby: c.get("controlledby"), stats: stats };
      }).filter(Boolean);
      var players = findObjs({ _type: "player" }).map(function (p) {
        return { _id: p.id, _displayname: p.get("_displayname"), _online: p.get("_online"),
          isGM: !!playerIsGM(p.id) };
      });
      lastTurnorder = campaign.get("turnorder") || "";
      graphics.forEach(function (g) {
        lastSig[g.id] = signature(graphicJSON(g));
      });
      return emitEvent("snapshot", {
        page: page,
        graphics: graphics.map(graphicJSON),
        campaign: { _type: "campaign", turnorder: lastTurnorder,
          initiativepage: campaign.get("initiativepage"), playerpageid: pageid },
        players: players,
        characters: characters,
        bars: st().settings.bars,
        mod: { name: SCRIPT, version: VERSION },
      });
    }

    // -- our writes, and other scripts' observers -------------------------------------------------
    function snapshotOf(obj) {
      var out = {};
      G_FIELDS.forEach(function (f) {
        var v = obj.get(f);
        if (v !== undefined) out[f] = v;
      });
      return out;
    }

    /** A write of ours to a token: set it, remember its state, and tell the scripts observing
     * us (VTTBridge.ObserveTokenChange), with what it was before. */
    function write(obj, attrs) {
      var prev = snapshotOf(obj);
      obj.set(attrs);
      lastSig[obj.id] = signature(graphicJSON(obj));
      observers.forEach(function (fn) {
        try {
          fn(obj, prev);
        } catch (e) {
          log(SCRIPT + ": an observer failed: " + ((e && e.message) || e));
        }
      });
    }

    /** Another script registers to hear our writes to tokens: fn(token, prev). */
    function observeTokenChange(fn) {
      if (typeof fn === "function" && observers.indexOf(fn) < 0) observers.push(fn);
    }

    /** A change another script made and told its observers of: a token's (a move, a bar) as a
     * player's drag or edit; an attribute's as a sheet edit. */
    function onObserved(obj, prev) {
      if (!obj || typeof obj.get !== "function") return;
      var before = prev && typeof prev.get === "function" ? snapshotOf(prev) : prev || {};
      var type = obj.get("_type");
      if (type === "graphic") onChangeGraphic(obj, before);
      else if (type === "attribute") onAttribute(obj, before);
    }

    /** Another script's API object by name. Scripts share one scope in the sandbox; a `const`
     * at a script's top level (TokenMod's) is no property of the global object, so the scripts
     * GMs use most are looked up by name. */
    function scriptApi(name) {
      if (name === "TokenMod") return typeof TokenMod !== "undefined" ? TokenMod : undefined;
      if (name === "ChatSetAttr") return typeof ChatSetAttr !== "undefined" ? ChatSetAttr : undefined;
      return typeof globalThis !== "undefined" ? globalThis[name] : undefined;
    }

    /** Register with the observers the `observe` setting names, those the game has. */
    function registerObservers() {
      (st().settings.observe || []).forEach(function (spec) {
        var m = /^([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)(?::(\w+))?$/.exec(spec);
        if (!m || observing.indexOf(spec) >= 0) return;
        var api = scriptApi(m[1]);
        if (!api || typeof api[m[2]] !== "function") return;
        try {
          if (m[3]) api[m[2]](m[3], onObserved);
          else api[m[2]](onObserved);
          observing.push(spec);
        } catch (e) {
          log(SCRIPT + ": could not observe " + spec + ": " + ((e && e.message) || e));
        }
      });
    }

    // -- held moves -----------------------------------------------------------------------------
    function pathCells(points, px) {
      // every cell a path through these px points crosses (sampled four times per cell)
      var cells = {};
      for (var i = 0; i < points.length; i++) {
        var a = points[i];
        var b = points[i + 1] || a;
        var len = Math.sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]));
        var n = Math.max(1, Math.ceil(len / (px / 4)));
        for (var k = 0; k <= n; k++) {
          var x = a[0] + ((b[0] - a[0]) * k) / n;
          var y = a[1] + ((b[1] - a[1]) * k) / n;
          cells[Math.floor(x / px) + "," + Math.floor(y / px)] = true;
        }
      }
      return cells;
    }

    function movePoints(prev, now) {
      var pts = [];
      var lm = String(now.lastmove || "");
      if (lm && lm !== String(prev.lastmove || "")) {
        var nums = lm.split(",").map(Number);
        for (var i = 0; i + 1 < nums.length; i += 2) pts.push([nums[i], nums[i + 1]]);
      }
      if (!pts.length) pts.push([Number(prev.left), Number(prev.top)]);
      pts.push([Number(now.left), Number(now.top)]);
      return pts;
    }

    function shouldHold(obj, prev, now) {
      var s = st();
      var w = s.watch;
      if (!s.settings.hold || !w || !w.watches || !w.watches.length) return false;
      if (w.page && w.page !== obj.get("_pageid")) return false;
      var px = cellPx(obj.get("_pageid"));
      var start = Math.floor(Number(prev.left) / px) + "," + Math.floor(Number(prev.top) / px);
      var crossed = Object.keys(pathCells(movePoints(prev, now), px)).filter(function (c) {
        return c !== start;
      });
      return w.watches.some(function (x) {
        if ((x.token && x.token !== obj.id) || (x.exclude && x.exclude === obj.id)) return false;
        if (!x.cells) return true; // any move of it may set the trigger off
        return crossed.some(function (c) {
          return x.cells[c];
        });
      });
    }

    function hold(obj, prev, now) {
      var s = st();
      s.holds[obj.id] = { left: now.left, top: now.top, lastmove: now.lastmove, at: Date.now() };
      write(obj, { left: prev.left, top: prev.top, lastmove: prev.lastmove || "" });
      if (holdTimers[obj.id]) clearTimeout(holdTimers[obj.id]);
      var ms = s.watch.maxHoldMs || (Number(s.settings.holdTimeout) || 30) * 1000;
      holdTimers[obj.id] = setTimeout(function () {
        releaseHold(obj.id, true);
      }, Math.max(1, ms));
    }

    function clearHold(id) {
      if (holdTimers[id]) clearTimeout(holdTimers[id]);
      delete holdTimers[id];
      delete st().holds[id];
    }

    function releaseHold(id, timedOut) {
      var h = st().holds[id];
      clearHold(id);
      var obj = h && getObj("graphic", id);
      if (!obj) return false;
      write(obj, { left: h.left, top: h.top, lastmove: h.lastmove || "" });
      if (timedOut) {
        var secs = (st().watch.maxHoldMs || (Number(st().settings.holdTimeout) || 30) * 1000) / 1000;
        whisperGM("VTTBridge: the bridge did not answer in " + esc(secs) + " s; " +
          esc(obj.get("name") || id) + "'s move went through.");
      }
      return true;
    }

    // -- Roll20 events --------------------------------------------------------------------------
    function onChangeGraphic(obj, prev) {
      if (obj.get("_subtype") !== "token" || pendingAdds[obj.id]) return;
      var now = graphicJSON(obj);
      var changed = WATCHED.filter(function (k) {
        return prev[k] !== undefined && String(prev[k]) !== String(now[k]);
      });
      if (!changed.length) return;
      var sig = signature(now);
      if (lastSig[obj.id] === sig) return; // the same state again: handled once
      lastSig[obj.id] = sig;
      var moved = changed.indexOf("left") >= 0 || changed.indexOf("top") >= 0;
      var extra = { prev: pickPrev(prev) };
      if (moved && st().holds[obj.id]) clearHold(obj.id); // moved by hand while held: a new move
      if (moved && shouldHold(obj, prev, now)) {
        hold(obj, prev, now);
        extra.held = true;
      }
      var payload = tokenEvent(obj, extra);
      payload.obj = now; // the move as made, even when held
      emitEvent("change:graphic", payload);
    }

    function onAddGraphic(obj) {
      if (obj.get("_subtype") !== "token") return;
      // Roll20 sets up a dropped token with a few changes right after the add: report it
      // once it has settled, as one add with its final state (no phantom move).
      pendingAdds[obj.id] = true;
      setTimeout(function () {
        delete pendingAdds[obj.id];
        var g = getObj("graphic", obj.id);
        if (!g || !isToken(g)) return;
        lastSig[g.id] = signature(graphicJSON(g));
        emitEvent("add:graphic", tokenEvent(g));
      }, ADD_SETTLE_MS);
    }

    function onDestroyGraphic(obj) {
      if (obj.get("_subtype") !== "token") return;
      delete lastSig[obj.id];
      delete pendingAdds[obj.id];
      clearHold(obj.id);
      emitEvent("destroy:graphic", { obj: graphicJSON(obj) });
    }

    function onTurnorder(obj, prev) {
      var now = obj.get("turnorder") || "";
      var before = prev && prev.turnorder !== undefined ? prev.turnorder : lastTurnorder;
      if (now === before) return;
      lastTurnorder = now;
      emitEvent("change:campaign:turnorder", {
        obj: { _type: "campaign", turnorder: now, initiativepage: obj.get("initiativepage"),
          playerpageid: obj.get("playerpageid") },
        prev: { turnorder: before || "" },
      });
    }

    function onAttribute(obj, prev) {
      var prefix = st().settings.statPrefix;
      var name = String(obj.get("name") || "");
      if (!prefix || name.toLowerCase().indexOf(prefix.toLowerCase()) !== 0) return;
      emitEvent("change:attribute", {
        obj: { _id: obj.id, _characterid: obj.get("_characterid"), name: name.slice(prefix.length),
          current: obj.get("current"), max: obj.get("max") },
        prev: prev ? { current: prev.current, max: prev.max } : {},
      });
    }

    function onPage(obj, prev) {
      if (obj.id !== Campaign().get("playerpageid")) return;
      var geometry = ["snapping_increment", "scale_number", "scale_units", "diagonaltype", "grid_type"];
      if (geometry.some(function (k) { return prev[k] !== undefined && prev[k] !== obj.get(k); })) {
        snapshot();
      }
    }

    function onChat(msg) {
      var content = String(msg.content || "");
      if (content.indexOf(MARK + "|") >= 0 || msg.who === SCRIPT) return; // our own lines
      if (msg.type === "api" && /^!vttbridge(\s|$)/i.test(content)) {
        handleCommand(msg);
        return;
      }
      var mode = st().settings.chat;
      if (mode === "none" || (mode === "commands" && msg.type !== "api")) return;
      if (msg.type === "api") {
        var name = content.slice(1).split(/\s/)[0].toLowerCase();
        if (st().settings.ignore.indexOf(name) >= 0) return; // another script's command
      }
      var plain = {};
      ["who", "playerid", "type", "content", "origRoll", "inlinerolls", "rolltemplate", "target",
        "target_name", "selected"].forEach(function (k) {
        if (msg[k] !== undefined) plain[k] = msg[k];
      });
      emitEvent("chat:message", { msg: plain, playerIsGM: !!playerIsGM(msg.playerid) });
    }

    // -- commands from the bridge ---------------------------------------------------------------
    function decodeCommand(text) {
      var body = text.trim();
      if (body.charAt(0) !== "{" && body.charAt(0) !== "[") body = decodeURIComponent(body);
      return JSON.parse(body);
    }

    function handleCommand(msg) {
      var rest = String(msg.content).replace(/^!vttbridge\s*/i, "");
      if (!playerIsGM(msg.playerid)) {
        // commands from the bridge come from the GM's tab only; a player is told so
        sendChat(SCRIPT, "/w \"" + String(msg.who).replace(/ \(GM\)$/, "").replace(/"/g, "") +
          "\" Only the GM may use !vttbridge.", null, { noarchive: true });
        return;
      }
      if (rest.charAt(0) === "-") return option(rest);
      var parsed;
      try {
        parsed = decodeCommand(rest);
      } catch (e) {
        whisperGM("VTTBridge: could not read a command (" + esc(e.message) + ").");
        return;
      }
      var batch = Array.isArray(parsed) ? { commands: parsed } : parsed.commands ? parsed : { commands: [parsed] };
      st().lastCommandAt = Date.now();
      var results = batch.commands.map(function (c) {
        return apply(c, c.world || batch.world || "*");
      });
      emit("results", results);
    }

    function apply(c, world) {
      var s = st();
      var seq = Number(c.seq);
      var last = s.applied[world] || 0;
      if (seq && seq <= last) return { seq: seq, ok: true, duplicate: true };
      var res;
      try {
        res = run(c.op, c.data || {}, c.options);
      } catch (e) {
        res = { code: "failed", message: String((e && e.message) || e) };
      }
      if (seq) s.applied[world] = Math.max(last, seq);
      if (res && res.code) return { seq: seq, ok: false, error: res };
      if (res && res.skipped) return { seq: seq, ok: true, skipped: res.skipped };
      return { seq: seq, ok: true };
    }

    function run(op, data, options) {
      switch (op) {
        case "sendChat":
          if (typeof data.message !== "string") return { code: "bad_command", message: "sendChat needs a message" };
          sendChat(data.speakingAs || SCRIPT, data.message, null, data.options || options || {});
          return null;
        case "set":
          return setGraphic(data);
        case "Campaign.set":
          return setTurnorder(data);
        case "watch":
          return setWatch(data);
        case "release":
          releaseHold(data.id, false);
          return null;
        case "setStats":
          return setStats(data);
        case "budget":
          return whisperBudget(data);
        default:
          return { code: "unknown_op", message: "no such operation: " + op };
      }
    }

    /** What is left of a token's movement after a drag: the bridge's line, whispered to the
     * mover (the bridge names them), unless the GM turned it off (--set budget off). */
    function whisperBudget(data) {
      if (!st().settings.budget) return { skipped: "budget whispers are off" };
      if (typeof data.message !== "string") return { code: "bad_command", message: "budget needs a message" };
      sendChat(data.speakingAs || SCRIPT, data.message, null, { noarchive: true });
      return null;
    }

    function setGraphic(data) {
      var type = data.type || "graphic";
      if (type !== "graphic") return { code: "bad_command", message: "set works on graphics only" };
      var obj = getObj("graphic", data.id);
      if (!obj) return { code: "unknown_token", message: "no graphic " + data.id };
      var attrs = {};
      Object.keys(data.attrs || {}).forEach(function (k) {
        if (k.charAt(0) !== "_") attrs[k] = data.attrs[k];
      });
      if (data.markers) attrs.statusmarkers = mergeMarkers(obj.get("statusmarkers"), data.markers);
      if (data.cell) {
        var px = cellPx(obj.get("_pageid"));
        attrs.left = (Number(data.cell.x) + 0.5) * px;
        attrs.top = (Number(data.cell.y) + 0.5) * px;
      }
      var h = st().holds[obj.id];
      if (h && attrs.left !== undefined) {
        // the bridge decided where the held token goes: completing the move keeps its path
        if (Number(attrs.left) === Number(h.left) && Number(attrs.top) === Number(h.top) &&
            attrs.lastmove === undefined) {
          attrs.lastmove = h.lastmove || "";
        }
        clearHold(obj.id);
      }
      write(obj, attrs);
      return null;
    }

    function mergeMarkers(text, patch) {
      var name = function (m) {
        return String(m).split("@")[0];
      };
      var drop = {};
      (patch.remove || []).forEach(function (m) {
        drop[m] = true;
      });
      var list = String(text || "").split(",").filter(function (m) {
        return m && !drop[name(m)];
      });
      (patch.add || []).forEach(function (m) {
        if (!list.some(function (x) { return name(x) === m; })) list.push(m);
      });
      return list.join(",");
    }

    // -- the rules' changes to a character --------------------------------------------------------
    function barFor(stat) {
      var bars = st().settings.bars || {};
      return ["bar1", "bar2", "bar3"].filter(function (b) {
        return bars[b] === stat;
      })[0] || null;
    }

    function ownToken(obj, cid) {
      if (!obj) return true;
      if (["bar1", "bar2", "bar3"].some(function (b) { return obj.get(b + "_link"); })) return true;
      return !findObjs({ _type: "graphic", _pageid: obj.get("_pageid"), represents: cid }).some(function (g) {
        return g.id !== obj.id;
      });
    }

    function attribute(cid, name) {
      var low = name.toLowerCase();
      var found = findObjs({ _type: "attribute", _characterid: cid }).filter(function (a) {
        return String(a.get("name") || "").toLowerCase() === low;
      })[0];
      return found || createObj("attribute", { characterid: cid, name: name, current: "" });
    }

    function setAttr(attr, value) {
      // with the sheet's workers, so a sheet that computes from the attribute stays right
      if (typeof attr.setWithWorker === "function") attr.setWithWorker({ current: value });
      else attr.set({ current: value });
    }

    function setStats(data) {
      var obj = data.token ? getObj("graphic", data.token) : null;
      if (data.token && !obj) return { code: "unknown_token", message: "no graphic " + data.token };
      var cid = data.character || (obj && obj.get("represents")) || "";
      var prefix = st().settings.statPrefix;
      var skipped = [];
      var own = Boolean(cid && prefix && getObj("character", cid) && ownToken(obj, cid));
      Object.keys(data.stats || {}).forEach(function (stat) {
        var value = data.stats[stat];
        var bar = obj && barFor(stat);
        var link = bar ? obj.get(bar + "_link") : "";
        var shown = bar ? String(obj.get(bar + "_value") === undefined ? "" : obj.get(bar + "_value")).trim() : "";
        var linked = link ? getObj("attribute", link) : null;
        if (linked) {
          setAttr(linked, value);
        } else if (bar && ((shown !== "" && !isNaN(Number(shown))) || !own)) {
          // the bar is where the bridge reads this token's value (or its only place)
          var attrs = {};
          attrs[bar + "_value"] = String(value);
          write(obj, attrs);
        } else if (own) {
          setAttr(attribute(cid, prefix + stat), value);
        } else {
          skipped.push(stat);
        }
      });
      if (obj) lastSig[obj.id] = signature(graphicJSON(obj));
      return skipped.length ? { skipped: skipped } : null;
    }

    function setWatch(data) {
      var w = emptyWatch();
      w.page = data.page || null;
      w.maxHoldMs = Number(data.max_hold_ms) > 0 ? Number(data.max_hold_ms) : null;
      (data.watches || []).forEach(function (x) {
        var cells = null;
        if (x.cells) {
          cells = {};
          x.cells.forEach(function (c) {
            cells[c[0] + "," + c[1]] = true;
          });
        }
        w.watches.push({ cells: cells, token: x.token || null, exclude: x.exclude || null });
      });
      st().watch = w;
      return null;
    }

    // -- turn order merge (mirrors adapters/roll20/turnorder.py merge_turnorder) ---------------
    function parseOrder(raw) {
      if (!raw) return [];
      var rows = typeof raw === "string" ? JSON.parse(raw) : raw;
      if (!Array.isArray(rows)) throw new Error("the turn order is not a list");
      return rows;
    }

    function isCustom(r) {
      return String(r.id) === "-1";
    }

    function isRoundCounter(r) {
      return isCustom(r) && /^\s*round\b/i.test(String(r.custom || ""));
    }

    function mergeTurnorder(rows, patch) {
      var beforeFirst = rows.length ? String(rows[0].id) : null;
      var removed = {};
      (patch.remove || []).forEach(function (id) {
        removed[id] = true;
      });
      var out = rows.map(function (r) {
        return JSON.parse(JSON.stringify(r));
      }).filter(function (r) {
        return isCustom(r) || !removed[String(r.id)];
      });
      (patch.set || []).forEach(function (row) {
        var hit = null;
        for (var i = 0; i < out.length; i++) {
          if (String(out[i].id) === String(row.id)) { hit = out[i]; break; }
        }
        if (hit) {
          hit.pr = row.pr;
        } else {
          var n = { id: String(row.id), pr: row.pr, custom: row.custom || "" };
          if (row._pageid) n._pageid = row._pageid;
          out.push(n);
        }
      });
      if (patch.order && out.length) out = reorder(out, patch.order);
      if (patch.round !== undefined && patch.round !== null) {
        for (var j = 0; j < out.length; j++) {
          if (isRoundCounter(out[j])) { out[j].pr = patch.round; break; }
        }
      }
      var target = patch.current !== undefined && patch.current !== null ? String(patch.current) : beforeFirst;
      if (target !== null) {
        for (var k = 0; k < out.length; k++) {
          if (String(out[k].id) === target) { out = out.slice(k).concat(out.slice(0, k)); break; }
        }
      }
      return out;
    }

    function reorder(rows, order) {
      var rank = {};
      order.forEach(function (id, i) {
        rank[id] = i;
      });
      var owned = [];
      rows.forEach(function (r, i) {
        if (!isCustom(r) && rank[String(r.id)] !== undefined) owned.push(i);
      });
      if (owned.length < 2) return rows;
      var n = rows.length;
      var counter = -1;
      for (var i = 0; i < n; i++) {
        if (isRoundCounter(rows[i])) { counter = i; break; }
      }
      var start;
      if (counter >= 0) {
        start = (counter + 1) % n;
      } else {
        start = owned.reduce(function (best, i) {
          return rank[String(rows[i].id)] < rank[String(rows[best].id)] ? i : best;
        }, owned[0]);
      }
      var ownedSet = {};
      owned.forEach(function (i) {
        ownedSet[i] = true;
      });
      var slots = [];
      for (var k = 0; k < n; k++) {
        var idx = (start + k) % n;
        if (ownedSet[idx]) slots.push(idx);
      }
      var ranked = owned.map(function (i) {
        return rows[i];
      }).sort(function (a, b) {
        return rank[String(a.id)] - rank[String(b.id)];
      });
      var out = rows.slice();
      slots.forEach(function (slot, i) {
        out[slot] = ranked[i];
      });
      return out;
    }

    function setTurnorder(data) {
      var campaign = Campaign();
      var text;
      if (data.merge) {
        var live;
        try {
          live = parseOrder(campaign.get("turnorder"));
        } catch (e) {
          return { code: "bad_turnorder", message: "the live turn order is not JSON" };
        }
        text = JSON.stringify(mergeTurnorder(live, data.merge));
      } else if (typeof data.turnorder === "string") {
        text = data.turnorder;
      } else {
        return { code: "bad_command", message: "Campaign.set needs merge or turnorder" };
      }
      var attrs = { turnorder: text };
      if (data.initiativepage !== undefined) attrs.initiativepage = data.initiativepage;
      campaign.set(attrs);
      lastTurnorder = text;
      return null;
    }

    // -- GM options -----------------------------------------------------------------------------
    function option(rest) {
      var parts = rest.split(/\s+/);
      var flag = parts[0].toLowerCase();
      switch (flag) {
        case "--status":
          return status();
        case "--snapshot":
          snapshot();
          return;
        case "--reset":
          st().applied = {};
          st().holds = {};
          st().watch = emptyWatch();
          whisperGM("VTTBridge: command history, holds and watches cleared.");
          return;
        case "--set":
          return setOption(parts[1], parts.slice(2).join(" "));
        case "--release":
          releaseHold(parts[1], false);
          return;
        default:
          return help();
      }
    }

    function setOption(key, value, quiet) {
      var say = quiet ? function (text) { log(text); } : whisperGM;
      var spec = SETTINGS[key];
      if (!spec) {
        say("VTTBridge: no setting " + esc(key) + ". " + Object.keys(SETTINGS).join(", "));
        return;
      }
      var v;
      if (key === "ignore" || key === "observe") {
        v = st().settings[key].slice();
        String(value).split(/[,\s]+/).forEach(function (item) {
          var name = item.replace(/^[+-]!?/, "");
          if (key === "ignore") name = name.toLowerCase();
          if (!name) return;
          var at = v.indexOf(name);
          if (item.charAt(0) === "-") {
            if (at >= 0) v.splice(at, 1);
          } else if (at < 0) {
            v.push(name);
          }
        });
      } else if (key === "bars") {
        v = {};
        String(value).split(/[,\s]+/).forEach(function (pair) {
          var kv = pair.split("=");
          if (kv.length === 2 && /^bar[123]$/.test(kv[0])) v[kv[0]] = kv[1];
        });
      } else if (typeof spec.def === "boolean") {
        v = /^(on|true|yes|1)$/i.test(value);
      } else if (typeof spec.def === "number") {
        v = Number(value);
        if (!(v > 0)) return say("VTTBridge: " + esc(key) + " must be a positive number.");
      } else {
        v = String(value);
        if (spec.choices && spec.choices.indexOf(v) < 0) {
          return say("VTTBridge: " + esc(key) + " is one of " + spec.choices.join(", ") + ".");
        }
      }
      st().settings[key] = v;
      if (key === "observe") registerObservers();
      say("VTTBridge: " + esc(key) + " = " + esc(JSON.stringify(v)));
    }

    /** The Mod page's options (a one-click install): Roll20 hands them to the script as
     * `globalconfig.vttbridge`, with the time they were last saved. Options saved since the
     * script last read them are applied, over what `--set` had changed; a checkbox is on when it
     * holds its value ("on"), and an empty text leaves its setting as it is. */
    function applyPageOptions() {
      var all = typeof globalconfig === "undefined" ? null : globalconfig;
      var g = all && (all.vttbridge || all[SCRIPT]);
      var s = st();
      if (!g || !g.lastsaved || g.lastsaved <= s.optionsSaved) return;
      s.optionsSaved = g.lastsaved;
      Object.keys(SETTINGS).forEach(function (k) {
        var v = g[k];
        if (typeof SETTINGS[k].def === "boolean") v = v === "on" ? "on" : "off";
        else if (v === undefined || v === null || String(v).trim() === "") return;
        setOption(k, String(v), true);
      });
    }

    function status() {
      var s = st();
      var rows = [
        ["version", VERSION + " (state v" + s.version + ")"],
        ["events sent", s.outSeq + " (epoch " + s.epoch + ")"],
        ["last command", s.lastCommandAt ? new Date(s.lastCommandAt).toISOString() : "none yet"],
        ["applied", Object.keys(s.applied).map(function (w) {
          return w + ": seq " + s.applied[w];
        }).join(", ") || "nothing yet"],
        ["held moves", Object.keys(s.holds).length],
        ["watched moves", s.watch.watches.length + (s.watch.page ? " on page " + s.watch.page : "")],
      ];
      Object.keys(SETTINGS).forEach(function (k) {
        rows.push([k, JSON.stringify(s.settings[k])]);
      });
      whisperGM("<div><b>VTTBridge status</b><br>" + rows.map(function (r) {
        return esc(r[0]) + ": " + esc(r[1]);
      }).join("<br>") + "</div>");
    }

    function help() {
      var lines = [
        "!vttbridge --status: what the script has sent and applied",
        "!vttbridge --snapshot: send the whole page to the bridge again",
        "!vttbridge --set <key> <value>: change a setting",
        "!vttbridge --reset: forget applied commands, holds and watches",
      ];
      Object.keys(SETTINGS).forEach(function (k) {
        lines.push(k + ": " + SETTINGS[k].help);
      });
      whisperGM("<div><b>VTTBridge " + VERSION + "</b><br>" + lines.map(esc).join("<br>") + "</div>");
    }

    // -- start ----------------------------------------------------------------------------------
    function start() {
      if (started) return;
      started = true;
      checkInstall();
      applyPageOptions();
      // one subscription per object type: no double handling of a move that changes both
      // left and top (as two property handlers would)
      on("change:graphic", onChangeGraphic);
      on("add:graphic", onAddGraphic);
      on("destroy:graphic", onDestroyGraphic);
      on("change:campaign:turnorder", onTurnorder);
      on("change:campaign:playerpageid", function () {
        snapshot();
      });
      on("change:page", onPage);
      on("change:attribute", onAttribute);
      on("add:attribute", function (obj) {
        onAttribute(obj, null);
      });
      on("chat:message", onChat);
      registerObservers();
      lastTurnorder = Campaign().get("turnorder") || "";
      emit("hello", { version: VERSION, epoch: st().epoch });
      log(SCRIPT + " " + VERSION + " ready (state v" + st().version + ")");
    }

    on("ready", start);

    return {
      version: VERSION,
      mergeTurnorder: mergeTurnorder,
      snapshot: snapshot,
      ObserveTokenChange: observeTokenChange,
    };
  })();
