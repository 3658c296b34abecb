// The relay's own logic against a page-shaped chat log (jsdom) and a stand-in socket.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { JSDOM } from "jsdom";
import { Relay, encode, parseFrames } from "../src/relay.js";
import { PAGE_HTML, tick, until } from "./roll20-sandbox.mjs";

class FakeSocket extends EventEmitter {
  constructor(url, opts) {
    super();
    this.url = url;
    this.opts = opts;
    this.connected = false;
    this.sent = [];
  }

  timeout() {
    return { emit: (name, payload, cb) => this.sent.push({ name, payload, cb }) };
  }

  connect() {
    this.connected = true;
    this.emit("connect");
  }

  disconnect() {
    this.connected = false;
  }

  drop(reason = "transport close") {
    this.connected = false;
    this.emit("disconnect", reason);
  }
}

function page({ config, commandTimeout } = {}) {
  const dom = new JSDOM(PAGE_HTML, { url: "https://app.roll20.net/editor/" });
  const doc = dom.window.document;
  const posted = [];
  doc.querySelector("#textchat-input .btn").addEventListener("click", () => {
    posted.push(doc.querySelector("#textchat-input textarea").value);
  });
  const sockets = [];
  const io = (url, opts) => {
    const s = new FakeSocket(url, opts);
    sockets.push(s);
    return s;
  };
  const log = { warn() {}, log() {} };
  const relay = new Relay({ window: dom.window, io, config, commandTimeout, log }).start();
  return { dom, doc, relay, posted, sockets };
}

const CONFIG = { url: "http://localhost:8787/", world: "w1", key: "vtt_gm_secret" };

function frame(epoch, seq, body, { parts = 1 } = {}) {
  const data = encode(JSON.stringify(body));
  const size = Math.ceil(data.length / parts);
  return Array.from({ length: parts }, (_, i) =>
    `VTTB1|${epoch}|${seq}|${i + 1}/${parts}|${data.slice(i * size, (i + 1) * size)}`);
}

function addMessage(doc, html, { hidden = true } = {}) {
  const el = doc.createElement("div");
  el.className = "message private whisper";
  el.innerHTML = `<span class="by">VTTBridge (To GM):</span> ` +
    [].concat(html).map((h) => (hidden ? `<div style="display: none">${h}</div>` : h)).join("");
  doc.querySelector("#textchat .content").appendChild(el);
  return el;
}

function state(relay) {
  return relay.panel.getAttribute("data-state");
}

test("frames: parse what the Mod writes", () => {
  const [text] = frame("ab12", 7, { k: "event", b: { name: "x", payload: { a: "[[1d20]] @{hp} ~" } } });
  const [f] = parseFrames(`junk ${text} junk`);
  assert.deepEqual({ ...f, data: undefined }, { epoch: "ab12", seq: 7, part: 1, total: 1, data: undefined });
  assert.deepEqual(JSON.parse(decodeURIComponent(f.data)).b.payload.a, "[[1d20]] @{hp} ~");
  assert.doesNotMatch(f.data, /[[\]{}@!'()*~]/);
});

test("unconfigured until the GM fills in the panel; then it connects", async () => {
  const { relay, sockets, dom } = page();
  assert.equal(state(relay), "unconfigured");
  assert.equal(sockets.length, 0);
  const form = relay.panel.querySelector(".vttb-form");
  form.elements.url.value = "http://localhost:9999/";
  form.elements.world.value = "w1";
  form.elements.key.value = "k";
  form.querySelector("button").click();
  assert.equal(sockets.length, 1);
  assert.equal(sockets[0].url, "http://localhost:9999/roll20");
  assert.deepEqual(sockets[0].opts.transports, ["websocket"]);
  assert.equal(state(relay), "connecting");
  const saved = JSON.parse(dom.window.localStorage.getItem("vttbridge.relay"));
  assert.deepEqual({ ...saved, link: undefined }, { url: "http://localhost:9999/", world: "w1", key: "k", link: undefined });
  assert.match(saved.link, /^w1#[a-z0-9]+$/);
  // the same settings again keep the link; a new key (a recreated world) starts a new one
  relay.lastApplied = 40;
  form.querySelector("button").click();
  assert.equal(relay.config.link, saved.link);
  assert.equal(relay.lastApplied, 40);
  form.elements.key.value = "k2";
  form.querySelector("button").click();
  assert.notEqual(relay.config.link, saved.link);
  assert.equal(relay.lastApplied, 0);
});

test("auth carries the world, the key, the client and last_seq once known", async () => {
  const { relay, sockets } = page({ config: CONFIG });
  let auth;
  sockets[0].opts.auth((a) => (auth = a));
  assert.deepEqual(auth, { world: "w1", key: "vtt_gm_secret",
    client: { name: "vttbridge-roll20-relay", version: "0.1.0", vtt: "roll20" } });
  relay.lastApplied = 41;
  sockets[0].opts.auth((a) => (auth = a));
  assert.equal(auth.last_seq, 41);
});

test("a refused connect says why; a lost one reconnects", async () => {
  const { relay, sockets } = page({ config: CONFIG });
  const err = new Error("Wrong key for world 'w1'.");
  err.data = { code: "wrong_key" };
  sockets[0].emit("connect_error", err);
  assert.equal(state(relay), "refused");
  assert.match(relay.panel.textContent, /refused the link: Wrong key for world 'w1'\. \(wrong_key\)/);
  sockets[0].connect();
  sockets[0].drop("ping timeout");
  assert.equal(state(relay), "reconnecting");
  assert.match(relay.panel.textContent, /connection lost \(ping timeout\), reconnecting/);
});

test("on connect: asks the Mod for a snapshot", async () => {
  const { sockets, posted } = page({ config: CONFIG });
  sockets[0].connect();
  assert.deepEqual(posted, ["!vttbridge --snapshot"]);
});

test("hidden frames become events (multi-part too); visible look-alikes do not", async () => {
  const { doc, relay, sockets } = page({ config: CONFIG });
  const sock = sockets[0];
  sock.connect();
  const body = { k: "event", b: { name: "change:graphic", payload: { obj: { _id: "t1", name: "x".repeat(300) } } } };
  const parts = frame("ep", 5, body, { parts: 3 });
  const el = addMessage(doc, [parts[0], parts[1]]);
  addMessage(doc, parts[2]);
  addMessage(doc, frame("ep", 6, body)[0], { hidden: false }); // a player's whisper
  await tick(5);
  assert.equal(sock.sent.length, 1);
  const [sent] = sock.sent;
  assert.equal(sent.name, "change:graphic");
  assert.equal(sent.payload.id, "ep-5");
  assert.equal(sent.payload.obj.name, "x".repeat(300));
  assert.equal(el.style.display, "none");
  // the same frame rendered again (Roll20 redraws the log) is not sent twice
  addMessage(doc, parts);
  await tick(5);
  assert.equal(sock.sent.length, 1);
  // acked: done; an error ack is shown to the GM
  sent.cb(null, { ok: false, error: { code: "unknown_token", message: "No token 't1'." } });
  assert.equal(relay.pending.length, 0);
  assert.match(relay.panel.textContent, /Last error: change:graphic: No token 't1'\. \(unknown_token\)/);
});

test("events wait while disconnected and go, in order, after the reconnect", async () => {
  const { doc, relay, sockets } = page({ config: CONFIG });
  const sock = sockets[0];
  sock.connect();
  addMessage(doc, frame("ep", 1, { k: "event", b: { name: "chat:message", payload: { n: 1 } } })[0]);
  await tick(5);
  sock.drop(); // the first was sent but never acked
  addMessage(doc, frame("ep", 2, { k: "event", b: { name: "chat:message", payload: { n: 2 } } })[0]);
  await tick(5);
  assert.equal(relay.pending.length, 2);
  assert.match(relay.panel.textContent, /2 events wait\./);
  sock.connect();
  assert.deepEqual(sock.sent.map((s) => s.payload.id), ["ep-1", "ep-1", "ep-2"]);
  for (const s of sock.sent.slice(1)) s.cb(null, { ok: true, seq: 1 });
  assert.equal(relay.pending.length, 0);
  assert.equal(relay.stats.events, 2);
});

test("commands: batched into one !vttbridge line, acked with the Mod's results", async () => {
  const { doc, relay, sockets, posted } = page({ config: CONFIG });
  const sock = sockets[0];
  sock.connect();
  posted.length = 0;
  const acks = {};
  sock.emit("command", { seq: 12, op: "sendChat", data: { message: "hi" } }, (a) => (acks[12] = a));
  sock.emit("command", { seq: 13, op: "set", data: { id: "t1", attrs: { left: 1 } } }, (a) => (acks[13] = a));
  await tick(5);
  assert.equal(posted.length, 1);
  const body = JSON.parse(decodeURIComponent(posted[0].replace(/^!vttbridge /, "")));
  assert.deepEqual(body, { world: "w1", commands: [
    { seq: 12, op: "sendChat", data: { message: "hi" } },
    { seq: 13, op: "set", data: { id: "t1", attrs: { left: 1 } } },
  ] });
  assert.doesNotMatch(posted[0], /[[\]{}@]/); // nothing Roll20's chat would expand
  assert.deepEqual(acks, {}); // not before the Mod applied them
  addMessage(doc, frame("ep", 9, { k: "results", b: [
    { seq: 12, ok: true }, { seq: 13, ok: false, error: { code: "unknown_token", message: "no graphic t1" } },
  ] })[0]);
  await tick(5);
  assert.deepEqual(acks[12], { ok: true });
  assert.deepEqual(acks[13], { ok: false, error: { code: "unknown_token", message: "no graphic t1" } });
  assert.equal(relay.lastApplied, 13);
  // re-sent after a reconnect: already applied, acked at once, not posted again
  sock.emit("command", { seq: 13, op: "set", data: {} }, (a) => (acks.again = a));
  await tick(5);
  assert.deepEqual(acks.again, { ok: true });
  assert.equal(posted.length, 1);
});

test("a Mod that does not answer: shown to the GM, commands posted again", async () => {
  const { doc, relay, sockets, posted } = page({ config: CONFIG, commandTimeout: 40 });
  const sock = sockets[0];
  sock.connect();
  posted.length = 0;
  let ack;
  sock.emit("command", { seq: 3, op: "sendChat", data: { message: "x" } }, (a) => (ack = a));
  await until(() => posted.length === 2, 2000, "the second post");
  assert.equal(posted[0], posted[1]);
  assert.equal(state(relay), "mod-silent");
  assert.match(relay.panel.textContent, /The Mod script does not answer/);
  addMessage(doc, frame("ep", 1, { k: "results", b: [{ seq: 3, ok: true }] })[0]);
  await tick(5);
  assert.deepEqual(ack, { ok: true });
  assert.equal(state(relay), "connected");
  await tick(80);
  assert.equal(posted.length, 2); // nothing left to post
});

test("the Mod restarting (hello) brings a fresh snapshot", async () => {
  const { doc, sockets, posted } = page({ config: CONFIG });
  sockets[0].connect();
  posted.length = 0;
  addMessage(doc, frame("new", 1, { k: "hello", b: { version: "0.1.0" } })[0]);
  await tick(5);
  assert.deepEqual(posted, ["!vttbridge --snapshot"]);
});

test("waits for Roll20 to build its chat before starting", async () => {
  const dom = new JSDOM("<!doctype html><body></body>", { url: "https://app.roll20.net/editor/" });
  const relay = new Relay({ window: dom.window, io: () => new FakeSocket(), config: CONFIG }).start();
  assert.equal(relay.panel, undefined);
  dom.window.document.body.innerHTML = PAGE_HTML.replace(/^[\s\S]*<body>|<\/body>[\s\S]*$/g, "");
  await until(() => relay.panel, 3000, "the panel");
  relay.stop();
});

test("a refusal that passes is retried, waiting longer each time; a final one stops", async () => {
  const { dom, relay, sockets } = page({ config: CONFIG });
  const s = sockets[0];
  const waits = [];
  let connects = 0;
  s.connect = () => (connects += 1);
  const realTimeout = dom.window.setTimeout;
  dom.window.setTimeout = (fn, ms) => {
    waits.push({ fn, ms });
    return waits.length;
  };
  try {
    const refuse = (code, message, extra = {}) => {
      const err = new Error(message);
      err.data = { code, ...extra };
      s.emit("connect_error", err);
    };
    refuse("shutting_down", "The server is shutting down.");
    assert.equal(state(relay), "reconnecting");
    assert.match(relay.panel.textContent, /shutting down\. \(shutting_down\); trying again in \d+ s/);
    waits.at(-1).fn();
    assert.equal(connects, 1); // socket.io-client does not retry a refused connect: the relay does
    refuse("world_unavailable", "The world is being loaded.");
    refuse("linked_elsewhere", "The world is linked to another VTT.");
    const [first, second, third] = waits.map((w) => w.ms);
    assert.ok(first >= 500 && first <= 1500, `${first}`); // 1 s, give or take half
    assert.ok(second >= 1000 && second <= 3000 && third >= 2000 && third <= 6000, `${second} ${third}`);
    refuse("too_many_attempts", "Too many wrong keys; try again in 40 s.", { retry_after: 40 });
    assert.ok(waits.at(-1).ms >= 40000, "the bridge's retry_after is honoured");
    const before = waits.length;
    refuse("unknown_world", "No world 'w1'.");
    assert.equal(state(relay), "refused");
    assert.match(relay.panel.textContent, /refused the link: No world 'w1'\. \(unknown_world\)\. Check the settings\./);
    assert.equal(waits.length, before, "a final refusal is not retried");
  } finally {
    dom.window.setTimeout = realTimeout;
  }
  // a connect that succeeds starts the waits over
  s.emit("connect");
  assert.equal(relay.retries, 0);
});
