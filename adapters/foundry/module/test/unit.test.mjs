// The module's pieces without a bridge, on Foundry v12 (the stand-in's generation 12): the
// shared commands fixture applied with one Foundry call each, seq bookkeeping, the watch
// geometry, and a held move when the bridge is away. unit-v13.test.mjs covers v13.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Actor, Hooks, calls, installFoundry, notes } from "./foundry-stub.mjs";
import { cellOf, line, watchedMove } from "../src/geometry.js";

const fixtures = new URL("../../../../tests/adapters/foundry/fixtures/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));

const snapshot = load("snapshot.json");
const foundry = installFoundry({
  generation: 12,
  userId: "gM0000000000000A",
  users: snapshot.users.map((u) => ({ ...u, active: true })),
  actors: [],
  scenes: [{ ...snapshot.scene, active: true, tokens: snapshot.tokens }],
  combats: [{ ...snapshot.combat }],
});
await import("../src/module.js");
await foundry.boot({ serverUrl: "http://127.0.0.1:9", world: "w", key: "" }); // no key: not linked
const bridge = globalThis.vttbridge;

test("without a key the module says so and does not connect", () => {
  assert.ok(notes.some((n) => n.level === "warn" && /not linked/.test(n.text)));
  assert.equal(bridge.socket, null);
});

test("the shared commands each make one Foundry call", async () => {
  const acks = [];
  const before = calls.length;
  for (const cmd of load("commands.json")) await bridge.onCommand(cmd, (a) => acks.push(a));
  const made = calls.slice(before);
  assert.deepEqual(made.map((c) => c.op), ["ChatMessage.create", "Token.update", "Combatant.update"]);
  assert.ok(acks.every((a) => a.ok), JSON.stringify(acks));
  const [chat, move, ini] = made;
  assert.equal(chat.data.content, "<p>Kevin enters a stand off with Thug.</p>");
  assert.equal(chat.data.flags.vttbridge.seq, 77);
  assert.deepEqual(move.changes, { x: 1300, y: 700 });
  assert.equal(move.options.animate, false);
  assert.equal(move.options.vttbridge.seq, 78);
  const thug = foundry.game.scenes.get("NUEDEFAULTSCENE0").tokens.get("Zq9XbC2dE4fG6hJ8");
  assert.equal(thug.x, 1300);
  assert.deepEqual(ini.changes, { initiative: 17 });
  assert.equal(foundry.game.combats.get("cB7tRk1Qw2Ee3Rr4").combatants.get("cKevin0000000001").initiative, 17);
  assert.equal(bridge.lastSeq, 79);
});

test("a command already applied is acknowledged and skipped", async () => {
  const before = calls.length;
  let ack;
  await bridge.onCommand({ seq: 78, op: "Token.update", data: { _id: "Zq9XbC2dE4fG6hJ8", x: 0, y: 0 } }, (a) => (ack = a));
  assert.deepEqual(ack, { ok: true, duplicate: true });
  assert.equal(calls.length, before);
});

test("a command the module cannot apply is refused with a code", async () => {
  let ack;
  await bridge.onCommand({ seq: 80, op: "Token.update", data: { _id: "nope" } }, (a) => (ack = a));
  assert.equal(ack.ok, false);
  assert.equal(ack.error.code, "unknown_token");
  await bridge.onCommand({ seq: 81, op: "Macro.execute", data: {} }, (a) => (ack = a));
  assert.equal(ack.error.code, "unknown_op");
  assert.equal(bridge.lastSeq, 81); // refused commands are not retried
});

test("turns are found by token, against Foundry's own order", async () => {
  const combat = foundry.game.combats.get("cB7tRk1Qw2Ee3Rr4");
  await bridge.onCommand({ seq: 82, op: "Combat.update", data: { round: 2, turn: 0, tokenId: "Zq9XbC2dE4fG6hJ8" } }, () => {});
  assert.equal(combat.round, 2);
  assert.equal(combat.combatant.tokenId, "Zq9XbC2dE4fG6hJ8");
});

test("a combatant not in the tracker is added", async () => {
  const combat = foundry.game.combats.get("cB7tRk1Qw2Ee3Rr4");
  combat.combatants.delete("cGary00000000002");
  await bridge.onCommand({ seq: 83, op: "Combatant.update", data: { tokenId: "tGary00000000002", initiative: 9 } }, () => {});
  assert.equal(calls.at(-1).op, "Combatant.create");
  assert.equal(combat.combatants.find((c) => c.tokenId === "tGary00000000002").initiative, 9);
});

test("whispers to 'GM' go to Foundry's GMs", async () => {
  await bridge.onCommand({ seq: 84, op: "ChatMessage.create", data: { content: "<p>x</p>", whisper: ["GM"] } }, () => {});
  assert.deepEqual(calls.at(-1).data.whisper, ["gM0000000000000A"]);
});

test("cells and lines match the bridge's", () => {
  assert.deepEqual(cellOf(1300, 600, 100), [13, 6]);
  assert.deepEqual(cellOf(1300, 600, 50, 2, 2), [27, 13]);
  assert.deepEqual(line([0, 0], [3, 1]), [[0, 0], [1, 0], [2, 1], [3, 1]]);
  const watch = { watches: [{ cells: [[10, 5]], token: null, exclude: "k" }] };
  const tok = { _id: "t", x: 1300, y: 500, width: 1, height: 1 };
  assert.equal(watchedMove(tok, { x: 1000, y: 500 }, watch, 100), true); // crosses 10,5
  assert.equal(watchedMove(tok, { x: 1100, y: 500 }, watch, 100), false); // stops short
  assert.equal(watchedMove({ ...tok, _id: "k" }, { x: 1000, y: 500 }, watch, 100), false); // excluded
  assert.equal(watchedMove({ ...tok, x: 1000 }, { x: 900, y: 500 }, watch, 100), false); // leaving
  assert.equal(watchedMove(tok, { x: 0, y: 0 }, { watches: [{ cells: null }] }, 100), true);
  assert.equal(watchedMove(tok, { hidden: true }, { watches: [{ cells: null }] }, 100), false);
});

test("a watched move with the bridge away goes through and says so", async () => {
  const scene = foundry.game.scenes.get("NUEDEFAULTSCENE0");
  await scene.update({ flags: { vttbridge: { watch: { watches: [{ cells: [[10, 5]] }], budget_ms: 50 } } } });
  const gary = scene.tokens.get("tGary00000000002");
  await gary.update({ x: 900, y: 500 }); // 11,5 -> 9,5 crosses 10,5
  assert.equal(calls.findLast((c) => c.op === "Token.update" && c.id === gary.id && !c.options.vttbridge)?.cancelled, true);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(gary.x, 900);
  const notice = calls.findLast((c) => c.op === "ChatMessage.create");
  assert.match(notice.data.content, /vttbridge is not connected: Gary(&#39;|')s move went through/);
  assert.deepEqual(notice.data.whisper, ["gM0000000000000A"]);
});

test("the rules' changes reach the sheet: a linked token's actor, an unlinked one's delta", async () => {
  const { actors } = foundry.game;
  actors.set("aKevin0000000001", new Actor({ _id: "aKevin0000000001", name: "Kevin", type: "character", system: { attributes: { action_dice: { value: 2 } } } }));
  actors.set("a1B2c3D4e5F6g7H8", new Actor({ _id: "a1B2c3D4e5F6g7H8", name: "Thug", type: "npc", system: { attributes: { wounds: { value: 10 } } } }));
  const hooked = [];
  Hooks.on("updateActor", (actor, changed, options) => hooked.push({ uuid: actor.uuid, changed, options }));
  const acks = [];
  const mark = { vttbridge: { bridge: true } };
  await bridge.onCommand({ seq: 90, op: "Actor.update", data: { _id: "aKevin0000000001", update: { "system.attributes.action_dice.value": 1 } }, options: mark }, (a) => acks.push(a));
  await bridge.onCommand({ seq: 91, op: "Actor.update", data: { _id: "a1B2c3D4e5F6g7H8", tokenId: "Zq9XbC2dE4fG6hJ8", sceneId: "NUEDEFAULTSCENE0", update: { "system.attributes.wounds.value": -1 } }, options: mark }, (a) => acks.push(a));
  assert.ok(acks.every((a) => a.ok), JSON.stringify(acks));
  assert.equal(actors.get("aKevin0000000001").system.attributes.action_dice.value, 1);
  const thug = foundry.game.scenes.get("NUEDEFAULTSCENE0").tokens.get("Zq9XbC2dE4fG6hJ8");
  assert.equal(thug.delta.system.attributes.wounds.value, -1); // the token's own
  assert.equal(thug.actor.system.attributes.wounds.value, -1);
  assert.equal(actors.get("a1B2c3D4e5F6g7H8").system.attributes.wounds.value, 10); // not the base actor's
  assert.deepEqual(hooked.map((h) => h.uuid), ["Actor.aKevin0000000001", "Scene.NUEDEFAULTSCENE0.Token.Zq9XbC2dE4fG6hJ8.Actor.a1B2c3D4e5F6g7H8"]);
  assert.deepEqual(hooked[0].changed, { _id: "aKevin0000000001", system: { attributes: { action_dice: { value: 1 } } } });
  assert.ok(hooked.every((h) => h.options.vttbridge.seq >= 90), "our own writes are marked: their hook is not sent back");
  let ack;
  await bridge.onCommand({ seq: 92, op: "Actor.update", data: { _id: "nobody", update: {} } }, (a) => (ack = a));
  assert.equal(ack.error.code, "unknown_actor");
});

test("conditions become status effects: v12+ Actor#toggleStatusEffect, v11 TokenDocument#toggleActiveEffect", async () => {
  const scene = foundry.game.scenes.get("NUEDEFAULTSCENE0");
  const thug = scene.tokens.get("Zq9XbC2dE4fG6hJ8");
  const standoff = { id: "vttbridge-standoff", name: "In a stand off", img: "icons/svg/target.svg" };
  const cmd = (seq, statuses) => ({ seq, op: "Actor.toggleStatusEffect", data: { tokenId: thug.id, sceneId: scene.id, statuses } });
  let ack;
  await bridge.onCommand(cmd(93, [{ ...standoff, active: true }, { id: "dead", active: true }]), (a) => (ack = a));
  assert.ok(ack.ok, JSON.stringify(ack));
  assert.deepEqual([...thug.actor.statuses].sort(), ["dead", "vttbridge-standoff"]);
  const registered = globalThis.CONFIG.statusEffects.find((e) => e.id === "vttbridge-standoff");
  assert.deepEqual(registered, { id: "vttbridge-standoff", name: "In a stand off", img: "icons/svg/target.svg" });
  await bridge.onCommand(cmd(94, [{ ...standoff, active: false }]), () => {});
  assert.deepEqual([...thug.actor.statuses], ["dead"]);
  assert.equal(globalThis.CONFIG.statusEffects.filter((e) => e.id === "vttbridge-standoff").length, 1);
  // Foundry 11
  foundry.game.release.generation = 11;
  try {
    const before = calls.length;
    const readied = { id: "vttbridge-readied", name: "Readied", img: "icons/svg/sword.svg" };
    await bridge.onCommand(cmd(95, [{ ...readied, active: true }]), (a) => (ack = a));
    assert.ok(ack.ok, JSON.stringify(ack));
    assert.deepEqual(calls.slice(before).map((c) => c.op), ["Token.toggleActiveEffect"]);
    assert.ok(thug.actor.statuses.has("vttbridge-readied"));
    const v11 = globalThis.CONFIG.statusEffects.find((e) => e.id === "vttbridge-readied");
    assert.deepEqual(v11, { id: "vttbridge-readied", name: "Readied", label: "Readied", icon: "icons/svg/sword.svg" });
  } finally {
    foundry.game.release.generation = 12;
  }
});

test("the bridge's own writes are not sent back to it; the GM's are", async () => {
  const emitted = [];
  const { socket, sceneId } = bridge;
  bridge.socket = { connected: true, emit: (event) => emitted.push(event) }; // linked, as far as send() knows
  bridge.sceneId = "NUEDEFAULTSCENE0";
  try {
    const seq = bridge.lastSeq;
    for (const cmd of load("commands.json")) {
      await bridge.onCommand({ ...cmd, seq: seq + cmd.seq }, () => {});
    }
    await bridge.onCommand({ seq: seq + 100, op: "Actor.update", data: { _id: "aKevin0000000001", update: { "system.attributes.action_dice.value": 2 } } }, () => {});
    assert.deepEqual(emitted, [], "the hooks of the bridge's own writes are dropped");
    const thug = foundry.game.scenes.get("NUEDEFAULTSCENE0").tokens.get("Zq9XbC2dE4fG6hJ8");
    await thug.update({ x: 1400 });
    await foundry.game.actors.get("aKevin0000000001").update({ "system.attributes.action_dice.value": 3 });
    assert.deepEqual(emitted, ["updateToken", "updateActor"]);
  } finally {
    bridge.socket = socket;
    bridge.sceneId = sceneId;
  }
});
