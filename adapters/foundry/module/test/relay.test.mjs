// A player's client, Foundry v12: it holds a watched move it starts (pre-hooks run only there),
// hands it to the primary GM's client over game.socket, and lets it through itself if no GM
// takes it. relay-v13.test.mjs: the same on v13, where the move is paused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { calls, installFoundry } from "./foundry-stub.mjs";

const PLAYER = "kT3rPq8Zx1LmNo2B";
const foundry = installFoundry({
  generation: 12,
  userId: PLAYER,
  users: [
    { _id: "gM0000000000000A", name: "Dana", role: 4, active: true },
    { _id: PLAYER, name: "Kevin's player", role: 1, active: true },
  ],
  scenes: [{
    _id: "s1", name: "Warehouse", active: true,
    flags: { vttbridge: { watch: { watches: [{ cells: [[10, 5]], exclude: "tKevin" }], budget_ms: 30 } } },
    tokens: [
      { _id: "tKevin", name: "Kevin", x: 800, y: 500 },
      { _id: "tGary", name: "Gary", x: 1300, y: 500 },
    ],
  }],
});
await import("../src/module.js");
await foundry.boot({});
const scene = foundry.game.scenes.get("s1");
const sent = foundry.socket.sent;
const handler = foundry.socket.handlers.get("module.vttbridge");

test("a player's client never runs the bridge", () => {
  assert.equal(globalThis.vttbridge, undefined);
});

test("an unwatched move is not delayed", async () => {
  const kevin = scene.tokens.get("tKevin");
  await kevin.update({ x: 1000, y: 500 }); // Kevin is excluded from his own Ready
  assert.equal(kevin.x, 1000);
  assert.equal(sent.length, 0);
});

test("a watched move is handed to the GM, who takes it", async () => {
  const gary = scene.tokens.get("tGary");
  await gary.update({ x: 1000, y: 500 });
  assert.equal(gary.x, 1300); // held
  const msg = sent.at(-1);
  assert.equal(msg.name, "module.vttbridge");
  assert.equal(msg.data.type, "hold");
  assert.deepEqual(msg.data.hold.changes, { x: 1000 }); // the differential, as Foundry passes it
  assert.equal(msg.data.hold.userId, PLAYER);
  handler({ type: "holding", id: msg.data.hold.id }); // the GM's client took it
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(gary.x, 1300); // the GM will move it once the Ready resolves
});

test("with no GM answering, the move goes through and the GM is told", async () => {
  const gary = scene.tokens.get("tGary");
  await gary.update({ x: 900, y: 500 });
  assert.equal(gary.x, 1300);
  await new Promise((r) => setTimeout(r, 30 + 500 + 100));
  assert.equal(gary.x, 900);
  const moved = calls.findLast((c) => c.op === "Token.update" && c.id === "tGary");
  assert.ok(moved.options.vttbridge.fallback);
  const notice = calls.findLast((c) => c.op === "ChatMessage.create");
  assert.match(notice.data.content, /did not answer: Gary(&#39;|')s move went through/);
});
