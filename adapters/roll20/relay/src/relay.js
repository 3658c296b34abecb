// The vttbridge Roll20 relay: runs in the GM's Roll20 tab (a userscript) and carries messages
// between the VTTBridge Mod script, which can only talk through chat, and a vttbridge server.
//
//   Mod --hidden GM whisper--> chat log --this relay--> socket.io /roll20 --> vttbridge
//   vttbridge --command--> this relay --"!vttbridge <json>" typed into chat--> Mod
//
// Frames from the Mod are `VTTB1|epoch|seq|part/total|data` inside a `display:none` element of
// a chat message (data: URI-encoded JSON). Only text inside a hidden element counts: a player
// can whisper the GM text that looks like a frame, but cannot make hidden HTML.
import { io as defaultIo } from "socket.io-client";

export const VERSION = "0.1.0";
export const MARK = "VTTB1";
export const NAMESPACE = "/roll20";
const STORE_KEY = "vttbridge.relay";
const FRAME = /VTTB1\|([A-Za-z0-9]+)\|(\d+)\|(\d+)\/(\d+)\|([A-Za-z0-9%._~-]*)/g;
const MAX_POST = 6000; // characters of one `!vttbridge` line
const SEEN_LIMIT = 2000;
/** Refused connects a retry cannot mend: the relay stops and says why (the GM fixes the
 * settings). Every other coded refusal passes (shutting_down, world_unavailable,
 * linked_elsewhere, too_many_attempts...): it is retried with a growing wait. */
export const FINAL_REFUSALS = ["bad_auth", "wrong_key", "unknown_world", "unsupported_protocol"];
const RETRY_MS = 1000;
const RETRY_MAX_MS = 30000;

/** URI-encode so nothing in the text means anything to Roll20's chat ([[, {{, @{, %{ ...). */
export function encode(text) {
  return encodeURIComponent(text).replace(
    /[!'()*~]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/** The frames in a text: [{epoch, seq, part, total, data}]. */
export function parseFrames(text) {
  const out = [];
  for (const m of String(text).matchAll(FRAME)) {
    out.push({ epoch: m[1], seq: Number(m[2]), part: Number(m[3]), total: Number(m[4]), data: m[5] });
  }
  return out;
}

function hiddenTexts(message) {
  const texts = [];
  for (const el of message.querySelectorAll("[style]")) {
    const style = (el.getAttribute("style") || "").replace(/\s+/g, "").toLowerCase();
    if (style.includes("display:none") && el.textContent.includes(MARK + "|")) {
      texts.push(el.textContent);
    }
  }
  return texts;
}

export class Relay {
  /**
   * @param {object} opts
   * @param {Window} opts.window  the Roll20 page
   * @param {Function} [opts.io]  socket.io-client's `io`
   * @param {object} [opts.config]  {url, world, key}; else read from localStorage
   * @param {number} [opts.commandTimeout]  ms to wait for the Mod's answer before re-posting
   */
  constructor({ window, io = defaultIo, config, commandTimeout = 15000, log = console } = {}) {
    this.window = window;
    this.document = window.document;
    this.storage = window.localStorage;
    this.io = io;
    this.log = log;
    this.commandTimeout = commandTimeout;
    this.config = config || this.loadConfig();
    this.socket = null;
    this.state = "idle";
    this.detail = "";
    this.pending = []; // events to send: {id, name, payload, inflight}
    this.commands = new Map(); // seq -> {msg, ack, postedAt}
    this.partial = new Map(); // epoch-seq -> {total, parts[]}
    this.seen = new Set();
    this.stats = { events: 0, commands: 0, errors: 0 };
    this.lastError = "";
    this.modSilent = false;
    this.postTimer = null;
    this.watchdog = null;
    this.retryTimer = null;
    this.retries = 0; // refused connects in a row, for the wait before the next
    this.observer = null;
    this.notice = ""; // what the bridge said of a companion's version, shown in the box
    this.noticed = new Set(); // the notices whispered to the GM this session
    this.modVersion = null; // the Mod script's version, as it said in chat
    this.modAnnounced = null; // the Mod version told to the bridge on this connection
  }

  // -- settings ------------------------------------------------------------------------------
  loadConfig() {
    try {
      const raw = this.storage && this.storage.getItem(STORE_KEY);
      return raw ? JSON.parse(raw) : null;
    } catch {
      return null;
    }
  }

  /** Save the settings. A new server, world or key is a new link: its command sequence
   * starts afresh (a recreated world restarts at seq 1), here and in the Mod's memory. */
  saveConfig(config) {
    const old = this.config || {};
    const same = old.url === config.url && old.world === config.world && old.key === config.key;
    const link = same && old.link ? old.link : `${config.world}#${Math.random().toString(36).slice(2, 8)}`;
    this.config = { ...config, link };
    this.storage.setItem(STORE_KEY, JSON.stringify(this.config));
  }

  /** The name the Mod keeps the last applied seq under. */
  linkId() {
    const c = this.config || {};
    return c.link || c.world;
  }

  seqKey() {
    return `${STORE_KEY}.applied.${this.linkId()}`;
  }

  get lastApplied() {
    const v = Number(this.storage.getItem(this.seqKey()));
    return Number.isFinite(v) ? v : 0;
  }

  set lastApplied(seq) {
    this.storage.setItem(this.seqKey(), String(seq));
  }

  // -- start ---------------------------------------------------------------------------------
  start() {
    const doc = this.document;
    this.chatLog = doc.querySelector("#textchat .content");
    this.input = doc.querySelector("#textchat-input textarea");
    if (!this.chatLog || !this.input) {
      // Roll20 builds its page after load: try again shortly
      this.window.setTimeout(() => this.start(), 500);
      return this;
    }
    this.buildPanel();
    this.observer = new this.window.MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) this.scan(n);
    });
    this.observer.observe(this.chatLog, { childList: true, subtree: true });
    this.scan(this.chatLog);
    if (this.config && this.config.url && this.config.world && this.config.key) this.connect();
    else this.setState("unconfigured");
    return this;
  }

  stop() {
    if (this.observer) this.observer.disconnect();
    if (this.socket) this.socket.disconnect();
    this.window.clearTimeout(this.watchdog);
    this.window.clearTimeout(this.postTimer);
    this.window.clearTimeout(this.retryTimer);
    this.setState("stopped");
  }

  /** The wait before retrying a refused connect: doubling from 1 s to 30 s, with socket.io's
   * own jitter (half either way, so relays refused together do not come back together), and
   * never less than the bridge's `retry_after`. */
  retryDelay(retryAfter) {
    const base = Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** this.retries);
    const jitter = base * 0.5 * (Math.random() * 2 - 1);
    this.retries += 1;
    return Math.max(Math.round(base + jitter), (Number(retryAfter) || 0) * 1000);
  }

  // -- the socket ----------------------------------------------------------------------------
  auth() {
    const auth = {
      world: this.config.world,
      key: this.config.key,
      client: { name: "vttbridge-roll20-relay", version: VERSION, vtt: "roll20" },
    };
    const last = this.lastApplied;
    if (last > 0) auth.last_seq = last;
    return auth;
  }

  connect() {
    if (this.socket) {
      this.socket.removeAllListeners();
      this.socket.disconnect();
    }
    const url = String(this.config.url).replace(/\/+$/, "");
    this.setState("connecting");
    this.window.clearTimeout(this.retryTimer);
    this.retries = 0;
    const socket = this.io(url + NAMESPACE, {
      auth: (cb) => cb(this.auth()),
      transports: ["websocket"],
      // a lost or unreachable server: socket.io-client retries by itself, with backoff
      reconnection: true,
      reconnectionDelay: RETRY_MS,
      reconnectionDelayMax: 10000,
      randomizationFactor: 0.5,
    });
    this.socket = socket;
    socket.on("connect", () => {
      this.retries = 0;
      this.modAnnounced = null;
      this.setState("connected");
      this.announceMod();
      for (const e of this.pending) e.inflight = false;
      this.flush();
      this.requestSnapshot();
    });
    socket.on("connect_error", (err) => {
      const code = err && err.data && err.data.code;
      if (!code) {
        this.setState("reconnecting", err && err.message); // socket.io-client retries
        return;
      }
      if (FINAL_REFUSALS.includes(code)) {
        // a wrong key, an unknown world...: retrying would not help
        this.setState("refused", `${err.message} (${code})`);
        return;
      }
      // refused for now (the server shuts down, the world is busy elsewhere, too many
      // attempts): socket.io-client does not retry a refused connect, so the relay does
      const wait = this.retryDelay(err.data.retry_after);
      this.setState("reconnecting", `${err.message} (${code}); trying again in ${Math.ceil(wait / 1000)} s`);
      this.window.clearTimeout(this.retryTimer);
      this.retryTimer = this.window.setTimeout(() => {
        if (this.socket === socket && !socket.connected && this.state !== "stopped") socket.connect();
      }, wait);
    });
    socket.on("disconnect", (reason) => {
      for (const e of this.pending) e.inflight = false;
      if (this.state === "stopped") return;
      this.setState("reconnecting", reason);
      if (reason === "io server disconnect") {
        this.window.setTimeout(() => socket.connect(), 1000);
      }
    });
    socket.on("command", (msg, ack) => this.onCommand(msg, ack));
    socket.on("notice", (n) => this.onNotice(n));
  }

  // -- versions meet ---------------------------------------------------------------------------
  /** The bridge says a companion's version is not one it supports (this relay's at connect,
   * the Mod script's when told): the box says so, and the GM gets it once as a whisper. */
  onNotice(n) {
    if (!n || n.code !== "companion_version" || !n.message) return;
    this.notice = n.message;
    this.render();
    if (this.noticed.has(n.message)) return;
    this.noticed.add(n.message);
    this.postChat(`/w gm VTTBridge: ${n.message}`);
  }

  /** Tell the bridge the Mod script's version (it says it in chat: its hello, its snapshots). */
  announceMod() {
    const socket = this.socket;
    const version = this.modVersion;
    if (!socket || !socket.connected || !version || this.modAnnounced === version) return;
    this.modAnnounced = version;
    socket.emit("companion", { name: "VTTBridge", version }, (ack) => {
      if (ack && ack.notice) this.onNotice(ack.notice);
    });
  }

  /** @param {unknown} version */
  heardMod(version) {
    if (typeof version !== "string" || !version) return;
    this.modVersion = version;
    this.announceMod();
  }

  // -- from the Mod (chat log) to the bridge ---------------------------------------------------
  scan(node) {
    if (!node || node.nodeType !== 1) return;
    const messages = node.matches(".message") ? [node] : node.querySelectorAll(".message");
    for (const m of messages) this.readMessage(m);
  }

  readMessage(message) {
    if (message.getAttribute("data-vttbridge")) return;
    const texts = hiddenTexts(message);
    if (!texts.length) return;
    message.setAttribute("data-vttbridge", "read");
    message.style.display = "none"; // the GM does not need to see the plumbing
    for (const text of texts) for (const f of parseFrames(text)) this.onFrame(f);
  }

  onFrame(f) {
    const key = `${f.epoch}-${f.seq}`;
    if (this.seen.has(key)) return;
    let entry = this.partial.get(key);
    if (!entry) {
      entry = { total: f.total, parts: new Array(f.total).fill(null) };
      this.partial.set(key, entry);
    }
    entry.parts[f.part - 1] = f.data;
    if (entry.parts.some((p) => p === null)) return;
    this.partial.delete(key);
    this.remember(key);
    let frame;
    try {
      frame = JSON.parse(decodeURIComponent(entry.parts.join("")));
    } catch (e) {
      this.log.warn("vttbridge relay: unreadable frame", key, e);
      return;
    }
    this.onModMessage(key, frame);
  }

  remember(key) {
    this.seen.add(key);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value);
  }

  onModMessage(key, frame) {
    switch (frame.k) {
      case "event": {
        if (frame.b.name === "snapshot") this.heardMod(frame.b.payload?.mod?.version);
        const payload = { ...frame.b.payload, id: key };
        this.pending.push({ id: key, name: frame.b.name, payload, inflight: false });
        this.flush();
        break;
      }
      case "results":
        for (const r of frame.b) this.onResult(r);
        break;
      case "hello":
        // the Mod sandbox (re)started: it may have missed changes while it was down
        this.heardMod(frame.b?.version);
        if (this.state === "connected") this.requestSnapshot();
        break;
      default:
        break;
    }
  }

  flush() {
    const socket = this.socket;
    if (!socket || !socket.connected) {
      this.render(); // show what waits
      return;
    }
    for (const e of this.pending) {
      if (e.inflight) continue;
      e.inflight = true;
      socket.timeout(20000).emit(e.name, e.payload, (err, ack) => {
        e.inflight = false;
        if (err) return; // no answer: it is sent again after the next reconnect
        this.pending = this.pending.filter((p) => p !== e);
        this.stats.events += 1;
        if (!ack || !ack.ok) {
          this.stats.errors += 1;
          const error = (ack && ack.error) || {};
          this.lastError = `${e.name}: ${error.message || "refused"} (${error.code || "?"})`;
          this.log.warn("vttbridge relay: the bridge refused", e.name, error);
        }
        this.render();
      });
    }
    this.render();
  }

  requestSnapshot() {
    this.postChat("!vttbridge --snapshot");
  }

  // -- from the bridge to the Mod ------------------------------------------------------------
  onCommand(msg, ack) {
    const seq = Number(msg && msg.seq);
    if (!seq) return ack && ack({ ok: false, error: { code: "bad_command", message: "no seq" } });
    if (seq <= this.lastApplied) return ack && ack({ ok: true }); // applied before
    const known = this.commands.get(seq);
    if (known) {
      known.ack = ack; // re-sent after a reconnect: answer the new delivery
      return;
    }
    this.commands.set(seq, { msg, ack, postedAt: 0 });
    if (!this.postTimer) this.postTimer = this.window.setTimeout(() => this.postCommands(), 0);
  }

  postCommands() {
    this.postTimer = null;
    const waiting = [...this.commands.entries()]
      .filter(([, c]) => !c.postedAt)
      .sort((a, b) => a[0] - b[0]);
    if (!waiting.length) return;
    let batch = [];
    let size = 0;
    const send = () => {
      if (!batch.length) return;
      const body = { world: this.linkId(), commands: batch };
      this.postChat("!vttbridge " + encode(JSON.stringify(body)));
      batch = [];
      size = 0;
    };
    for (const [seq, c] of waiting) {
      const cmd = { seq, op: c.msg.op, data: c.msg.data || {} };
      if (c.msg.options) cmd.options = c.msg.options;
      const len = encode(JSON.stringify(cmd)).length;
      if (size && size + len > MAX_POST) send();
      batch.push(cmd);
      size += len;
      c.postedAt = Date.now();
    }
    send();
    this.armWatchdog();
  }

  armWatchdog() {
    this.window.clearTimeout(this.watchdog);
    this.watchdog = this.window.setTimeout(() => {
      if (!this.commands.size) return;
      // the Mod did not answer: the sandbox may be asleep or restarting; post them again
      // (the Mod ignores a seq it has applied)
      this.modSilent = true;
      for (const c of this.commands.values()) c.postedAt = 0;
      this.render();
      this.postCommands();
    }, this.commandTimeout);
  }

  onResult(r) {
    const seq = Number(r.seq);
    if (seq > this.lastApplied) this.lastApplied = seq;
    const c = this.commands.get(seq);
    this.modSilent = false;
    if (!c) return;
    this.commands.delete(seq);
    this.stats.commands += 1;
    if (!r.ok) {
      this.stats.errors += 1;
      this.lastError = `${c.msg.op}: ${(r.error && r.error.message) || "failed"}`;
    }
    if (c.ack) c.ack(r.ok ? { ok: true } : { ok: false, error: r.error });
    if (!this.commands.size) this.window.clearTimeout(this.watchdog);
    this.render();
  }

  postChat(text) {
    const input = this.input;
    const button =
      this.document.querySelector("#chatSendBtn") ||
      this.document.querySelector("#textchat-input .btn, #textchat-input button");
    if (!input || !button) {
      this.log.warn("vttbridge relay: no chat input on this page");
      return false;
    }
    const typed = input.value; // the GM's half-typed line survives
    input.value = text;
    button.click();
    input.value = typed;
    return true;
  }

  // -- what the GM sees ------------------------------------------------------------------------
  buildPanel() {
    const doc = this.document;
    let panel = doc.getElementById("vttbridge-relay");
    if (panel) panel.remove();
    panel = doc.createElement("div");
    panel.id = "vttbridge-relay";
    panel.setAttribute(
      "style",
      "position:fixed;left:8px;bottom:8px;z-index:100000;font:12px sans-serif;" +
        "background:#fff;color:#222;border:1px solid #999;border-radius:4px;padding:4px 8px;" +
        "max-width:420px;box-shadow:0 1px 4px rgba(0,0,0,.3)",
    );
    panel.innerHTML =
      '<span class="vttb-dot" style="display:inline-block;width:8px;height:8px;border-radius:4px;' +
      'margin-right:6px;background:#999"></span><span class="vttb-text"></span> ' +
      '<a href="#" class="vttb-toggle">settings</a>' +
      '<form class="vttb-form" style="display:none;margin-top:4px">' +
      '<label>Server <input name="url" placeholder="http://localhost:8787" size="28"></label><br>' +
      '<label>World <input name="world" placeholder="default" size="16"></label><br>' +
      '<label>GM key <input name="key" type="password" size="28"></label><br>' +
      '<button type="submit">Connect</button></form>';
    doc.body.appendChild(panel);
    const form = panel.querySelector(".vttb-form");
    panel.querySelector(".vttb-toggle").addEventListener("click", (e) => {
      e.preventDefault();
      form.style.display = form.style.display === "none" ? "block" : "none";
    });
    const c = this.config || {};
    form.elements.url.value = c.url || "http://localhost:8787";
    form.elements.world.value = c.world || "default";
    form.elements.key.value = c.key || "";
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.saveConfig({
        url: form.elements.url.value.trim(),
        world: form.elements.world.value.trim(),
        key: form.elements.key.value.trim(),
      });
      form.style.display = "none";
      this.connect();
    });
    this.panel = panel;
    this.render();
  }

  setState(state, detail = "") {
    this.state = state;
    this.detail = detail || "";
    this.render();
  }

  statusText() {
    const world = this.config && this.config.world;
    const waiting = this.pending.length;
    switch (this.state) {
      case "unconfigured":
        return "VTTBridge: set the server, world and GM key (settings).";
      case "connecting":
        return `VTTBridge: connecting to ${this.config.url}…`;
      case "connected": {
        let text = `VTTBridge: linked to world '${world}' (${this.stats.events} events, ` +
          `${this.stats.commands} commands, last seq ${this.lastApplied})`;
        if (this.modSilent) {
          text += ". The Mod script does not answer: is the API sandbox running? Try !vttbridge --status";
        }
        if (this.lastError) text += `. Last error: ${this.lastError}`;
        return text + ".";
      }
      case "reconnecting":
        return `VTTBridge: connection lost (${this.detail || "no answer"}), reconnecting…` +
          (waiting ? ` ${waiting} ${waiting === 1 ? "event waits" : "events wait"}.` : "");
      case "refused":
        return `VTTBridge: the server refused the link: ${this.detail}. Check the settings.`;
      case "stopped":
        return "VTTBridge: stopped.";
      default:
        return "VTTBridge: starting…";
    }
  }

  render() {
    if (!this.panel) return;
    const colours = { connected: "#2a2", connecting: "#e90", reconnecting: "#e90", refused: "#d22" };
    let state = this.state === "connected" && this.modSilent ? "mod-silent" : this.state;
    if (state === "connected" && this.notice) state = "version";
    this.panel.setAttribute("data-state", state);
    this.panel.querySelector(".vttb-dot").style.background =
      state === "mod-silent" || state === "version" ? "#e90" : colours[this.state] || "#999";
    const notice = this.notice ? ` Update needed: ${this.notice}` : "";
    this.panel.querySelector(".vttb-text").textContent = this.statusText() + notice;
  }
}

export function startRelay(window, options = {}) {
  const relay = new Relay({ window, ...options });
  window.vttbridgeRelay = relay;
  return relay.start();
}
