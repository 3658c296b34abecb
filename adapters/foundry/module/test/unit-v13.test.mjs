// The module on Foundry v13, without a bridge: the Token Ruler coloured by the budget the bridge
// writes on the token (flags.vttbridge.budget), paths measured as the rules measure them, and
// the link's bookkeeping: no last_seq when this browser has no record, events whose ack was
// lost sent again after a reconnect under their own ids, in order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { calls, installFoundry, planDrag } from "./foundry-stub.mjs";

const fixtures = new URL("../../../../tests/adapters/foundry/fixtures/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));

const GM = "gM0000000000000A";
const foundry = installFoundry({
  generation: 13,
  userId: GM,
  users: [{ _id: GM, name: "Dana", role: 4, active: true, color: 0x123456 }],
  scenes: [{
    _id: "sRuins0000000001", name: "Ruins", active: true,
    tokens: [
      { _id: "tMint", name: "Mint", x: 0, y: 0 },
      { _id: "tPip", name: "Pip", x: 0, y: 500 },
    ],
  }],
});
const mod = await import("../src/module.js");
await foundry.boot({ serverUrl: "http://127.0.0.1:9", world: "w", key: "" }); // not linked
const bridge = globalThis.vttbridge;
const { RULER_COLORS, pathLength } = mod;
const scene = foundry.game.scenes.get("sRuins0000000001");
const mint = scene.tokens.get("tMint");
const USER_COLOR = 0x123456;

let seq = 100;
/** The bridge's command for a budget (what adapters/foundry's MovementBudget becomes). */
async function budget(token, figures) {
  const value = figures && { speed: 25, moved: 0, left: 75, walk: 25, run: 75, sneak: null, turn: true, metric: "alternating", distance: 5, ...figures };
  let ack;
  await bridge.onCommand({ seq: ++seq, op: "Token.update", data: { _id: token.id, sceneId: scene.id, flags: { vttbridge: { budget: value } } }, options: { animate: false, vttbridge: { bridge: true, budget: true } } }, (a) => (ack = a));
  assert.ok(ack.ok, JSON.stringify(ack));
}

const east = (n, y = 0) => Array.from({ length: n }, (_, i) => ({ x: (i + 1) * 100, y }));
const tiers = (drawn) => drawn.segments.map((s) => Object.entries(RULER_COLORS).find(([, c]) => c === s.style.color)?.[0] ?? "plain");

test("the shared path lengths: the module measures a path as the rules do", () => {
  for (const c of load("path_lengths.json").cases) {
    const got = pathLength(c.cells, c.metric, c.distance);
    assert.ok(Math.abs(got - c.length) < 1e-9, `${got} != ${JSON.stringify(c)}`); // float sums
  }
});

test("no budget on the token: Foundry's own ruler", () => {
  assert.deepEqual(new Set(tiers(planDrag(mint, east(3)))), new Set(["plain"]));
  assert.ok(planDrag(mint, east(3)).segments.every((s) => s.style.color === USER_COLOR));
});

test("walk within one action, run to 3x, beyond refused", async () => {
  await budget(mint, { walk: 25, run: 75 });
  const drawn = planDrag(mint, east(16)); // one segment per 5 ft cell
  assert.deepEqual(tiers(drawn), [...Array(5).fill("walk"), ...Array(10).fill("run"), "over"]);
  // grid spaces too: the start cell, then one per step
  const cells = drawn.highlights.map((h) => [h.offset.j, Object.entries(RULER_COLORS).find(([, c]) => c === h.style.color)?.[0]]);
  assert.deepEqual(cells.sort((a, b) => a[0] - b[0]).map((c) => c[1]), ["walk", ...Array(5).fill("walk"), ...Array(10).fill("run"), "over"]);
});

test("diagonals count 5/10 as the rules count them, leg by leg", async () => {
  await budget(mint, { walk: 15, run: 45 });
  const diagonal = [1, 2, 3, 4].map((i) => ({ x: i * 100, y: i * 100 }));
  // one drag through four diagonal waypoints: four legs of 5 ft (each its own move)
  assert.deepEqual(tiers(planDrag(mint, diagonal)), ["walk", "walk", "walk", "run"]);
  // one straight diagonal leg of 3 cells: 5 + 10 + 5 = 20 ft, past the walk
  const drawn = planDrag(mint, [{ x: 300, y: 300 }]);
  assert.deepEqual(tiers(drawn), ["run"]);
  const colors = drawn.highlights.map((h) => [h.offset.j, h.style.color]).sort((a, b) => a[0] - b[0]);
  assert.deepEqual(colors.map((c) => c[1]), [RULER_COLORS.walk, RULER_COLORS.walk, RULER_COLORS.walk, RULER_COLORS.run]); // 0, 5, 15, 20 ft
  await budget(mint, { walk: 15, run: 45, metric: "chebyshev" });
  assert.deepEqual(tiers(planDrag(mint, [{ x: 300, y: 300 }])), ["walk"]); // 15 ft
});

test("sneaking: sneak speed, then refused; not his turn: all refused", async () => {
  await budget(mint, { walk: null, run: null, sneak: 10, left: 10 });
  assert.deepEqual(tiers(planDrag(mint, east(4))), ["sneak", "sneak", "over", "over"]);
  await budget(mint, { turn: false });
  assert.deepEqual(tiers(planDrag(mint, east(2))), ["over", "over"]);
  // the budget is cleared (the fight ended): the plain ruler again
  await budget(mint, null);
  assert.equal(mint.flags.vttbridge.budget, null);
  assert.deepEqual(tiers(planDrag(mint, east(2))), ["plain", "plain"]);
});

test("the module setting turns the colours off", async () => {
  await budget(mint, { walk: 25, run: 75 });
  await foundry.game.settings.set("vttbridge", "ruler", false);
  assert.deepEqual(tiers(planDrag(mint, east(2))), ["plain", "plain"]);
  await foundry.game.settings.set("vttbridge", "ruler", true);
  assert.deepEqual(tiers(planDrag(mint, east(2))), ["walk", "walk"]);
});

test("a jump waypoint is drawn and measured like a step", async () => {
  await budget(mint, { walk: 10, run: 30 });
  assert.deepEqual(tiers(planDrag(mint, [{ x: 100, y: 0 }, { x: 400, y: 0 }], { actions: ["walk", "jump"] })), ["walk", "run"]);
});

// -- the link's bookkeeping, with a stand-in socket ----------------------------------------------

class FakeSocket extends EventEmitter {
  constructor(url, opts) {
    super();
    this.url = url;
    this.opts = opts;
    this.connected = false;
    this.sent = [];
  }
  emit(name, ...args) {
    if (["connect", "disconnect", "connect_error", "command"].includes(name)) return super.emit(name, ...args);
    const [body, ack] = args;
    this.sent.push({ name, body, ack });
    return true;
  }
  authData() {
    let data;
    this.opts.auth((d) => (data = d));
    return data;
  }
  connect() {
    this.connected = true;
    super.emit("connect");
  }
  drop() {
    this.connected = false;
    super.emit("disconnect", "transport close");
  }
  disconnect() {
    this.connected = false;
  }
}

function linked() {
  const sockets = [];
  const b = new mod.Bridge({ io: (url, opts) => sockets.push(new FakeSocket(url, opts)) && sockets.at(-1) });
  return { b, sockets };
}

test("last_seq is left out when this browser has no record of the link", async () => {
  await foundry.game.settings.set("vttbridge", "key", "vtt_gm_secret"); // starts the module's own link too
  globalThis.vttbridge?.stop();
  const { b, sockets } = linked();
  globalThis.localStorage.removeItem?.(b.seqKey ?? "");
  for (const k of [...(globalThis.localStorage.map?.keys() ?? [])]) globalThis.localStorage.removeItem(k);
  b.start();
  assert.equal(b.lastSeq, null);
  assert.ok(!("last_seq" in sockets[0].authData()), JSON.stringify(sockets[0].authData()));
  b.setSeq(7); // a command applied: known now (and kept in this browser)
  assert.equal(sockets[0].authData().last_seq, 7);
  b.start(); // a new page load reads it back
  assert.equal(sockets[1].authData().last_seq, 7);
  globalThis.localStorage.setItem(b.seqKey, "not a number");
  b.start();
  assert.ok(!("last_seq" in sockets[2].authData()));
  b.stop();
});

test("an event whose ack was lost goes again after the reconnect, same id, in order", async () => {
  const { b, sockets } = linked();
  b.start();
  const s = sockets[0];
  s.connect();
  const snapshot = s.sent.find((e) => e.name === "snapshot");
  snapshot.ack({ ok: true, seq: 1 });
  b.send("createChatMessage", { message: { content: "a" } });
  b.send("createChatMessage", { message: { content: "b" } });
  const [a, bb] = s.sent.slice(-2).map((e) => e.body.id);
  s.sent.at(-1).ack({ ok: true, seq: 2 }); // b arrives and is acknowledged; a's ack is lost
  s.drop();
  b.send("createChatMessage", { message: { content: "c" } }); // while away: waits, in order
  assert.equal(s.sent.length, 3);
  s.connect();
  const again = s.sent.slice(3);
  assert.deepEqual(again.map((e) => e.body.message?.content ?? e.name), ["a", "c", "snapshot"]);
  assert.equal(again[0].body.id, a); // the bridge applies an id once
  assert.notEqual(again[0].body.id, bb);
  for (const e of again) e.ack({ ok: true, seq: 3 });
  assert.equal(b.outbox.size, 0);
  s.drop();
  s.connect();
  assert.deepEqual(s.sent.slice(6).map((e) => e.name), ["snapshot"]); // nothing else to send
  b.stop();
});

test("the outbox is bounded: past 200 waiting events the oldest go", () => {
  const { b } = linked();
  b.start();
  for (let i = 0; i < 205; i++) b.send("createChatMessage", { message: { content: String(i) } });
  assert.equal(b.outbox.size, 200);
  assert.equal([...b.outbox.values()][0].body.message.content, "5");
  b.stop();
});

test("a refusal that passes is retried after the wait it names; a final one is not", async () => {
  const { b, sockets } = linked();
  b.start();
  const s = sockets[0];
  let reconnects = 0;
  s.connect = () => (reconnects += 1);
  const timers = [];
  const realTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms) => timers.push({ fn, ms });
  try {
    s.emit("connect_error", Object.assign(new Error("Too many attempts"), { data: { code: "too_many_attempts", retry_after: 12 } }));
    assert.deepEqual(timers.map((t) => t.ms), [12000]);
    timers[0].fn();
    assert.equal(reconnects, 1);
    s.emit("connect_error", Object.assign(new Error("Wrong key"), { data: { code: "wrong_key" } }));
    assert.equal(b.state, "refused");
    assert.equal(timers.length, 1);
  } finally {
    globalThis.setTimeout = realTimeout;
    b.stop();
  }
  assert.ok(calls.length > 0);
});

test("the rules stop a paused move where they put it; a release resumes one", async () => {
  // the module's own link, linked: a stand-in socket that acknowledges held moves
  const b = globalThis.vttbridge ?? mod.bridge;
  const held = [];
  b.socket = {
    connected: true,
    emit: () => true,
    timeout: () => ({ emitWithAck: (event, payload) => (held.push(payload), Promise.resolve({ ok: true, seq: 1 })) }),
    removeAllListeners() {},
    disconnect() {},
  };
  b.sceneId = scene.id;
  await scene.update({ flags: { vttbridge: { watch: { watches: [{ cells: [[5, 5]] }], budget_ms: 1000 } } } });
  const pip = scene.tokens.get("tPip");
  const hold = async (to) => {
    held.length = 0;
    await pip.move([{ x: to, y: 500, explicit: true, checkpoint: true }], { method: "dragging" });
    for (let i = 0; i < 100 && !held.length; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(pip.movement.state, "paused");
    return held[0];
  };
  // 0,5 -> 8,5 crosses 5,5: paused at 4,5; the rules keep it there (a refused move)
  let h = await hold(800);
  assert.equal(pip.x, 400);
  assert.deepEqual(h.waypoints, [{ x: 800, y: 500, action: "walk" }]);
  let ack;
  await b.onCommand({ seq: ++seq, op: "Token.update", data: { _id: "tPip", sceneId: scene.id, x: 400, y: 500 }, options: { animate: true, vttbridge: { bridge: true, hold: h.id, moved: false } } }, (a) => (ack = a));
  assert.deepEqual(ack, { ok: true, hold: h.id });
  assert.equal(pip.movement.state, "stopped");
  assert.equal(pip.x, 400);
  assert.ok(calls.some((c) => c.op === "Token.stopMovement" && c.id === "tPip"));
  // elsewhere: stopped, then put where the rules put it
  await pip.update({ x: 0, y: 500 }, { vttbridge: { bridge: true } });
  h = await hold(800);
  await b.onCommand({ seq: ++seq, op: "Token.update", data: { _id: "tPip", sceneId: scene.id, x: 200, y: 600 }, options: { animate: true, vttbridge: { bridge: true, hold: h.id, moved: false } } }, () => {});
  assert.deepEqual([pip.x, pip.y], [200, 600]);
  // moved: the paused movement resumes along the rest of its path
  await pip.update({ x: 0, y: 500 }, { vttbridge: { bridge: true } });
  h = await hold(800);
  await b.onCommand({ seq: ++seq, op: "Token.update", data: { _id: "tPip", sceneId: scene.id, x: 800, y: 500 }, options: { animate: true, vttbridge: { bridge: true, hold: h.id, moved: true } } }, () => {});
  for (let i = 0; i < 100 && pip.x !== 800; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(pip.x, 800);
  assert.ok(calls.some((c) => c.op === "Token.resumeMovement" && c.key === h.id));
  // the release came once: a second one for the same hold moves nothing
  await b.onCommand({ seq: ++seq, op: "Token.update", data: { _id: "tPip", sceneId: scene.id, x: 0, y: 0 }, options: { vttbridge: { bridge: true, hold: h.id, moved: true } } }, (a) => (ack = a));
  assert.equal(ack.skipped, "the move already went through");
  assert.equal(pip.x, 800);
  for (const t of b.holds.values()) clearTimeout(t.timer);
  b.socket = null;
});
