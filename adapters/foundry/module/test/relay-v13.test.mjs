// A player's client, Foundry v13: a drag into a watched cell is re-planned with a checkpoint in
// the cell before it and paused there (TokenDocument#pauseMovement, with the hold's id as key);
// the hold goes to the primary GM's client over game.socket with the rest of the path. The GM's
// answer reaches the mover as Foundry delivers it: resumeMovement(movementId, key) resumes it,
// the module's "stop" message stops it where it stands; with no GM answering it resumes itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { calls, installFoundry } from "./foundry-stub.mjs";

const PLAYER = "kT3rPq8Zx1LmNo2B";
const foundry = installFoundry({
  generation: 13,
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
const gary = scene.tokens.get("tGary");
const drag = (doc, ...points) => doc.move(points.map(([x, y]) => ({ x, y, explicit: true, checkpoint: true })), { method: "dragging" });
const until = async (what, pred, ms = 2000) => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test("an unwatched drag goes at once, along its waypoints", async () => {
  const kevin = scene.tokens.get("tKevin");
  await drag(kevin, [800, 600], [1000, 600]); // Kevin is excluded from his own Ready
  await until("Kevin's drag", () => kevin.x === 1000 && kevin.y === 600);
  assert.equal(kevin.movement.state, "completed");
  assert.equal(sent.length, 0);
});

test("a watched drag is paused in the cell before the watched one and handed to the GM", async () => {
  sent.length = 0;
  await drag(gary, [900, 500]); // 13,5 -> 9,5 crosses 10,5
  await until("the pause", () => gary.movement.state === "paused");
  assert.equal(gary.x, 1100); // 11,5: the cell before 10,5
  const replanned = calls.find((c) => c.op === "Token.move" && c.id === "tGary" && c.options.vttbridge?.split);
  assert.deepEqual(replanned.waypoints.map((w) => [w.x, w.y, Boolean(w.checkpoint)]), [[1100, 500, true], [900, 500, true]]);
  assert.ok(!calls.some((c) => c.op === "Token.update" && c.id === "tGary" && c.cancelled), "paused, not cancelled");
  const msg = sent.at(-1);
  assert.equal(msg.data.type, "hold");
  const h = msg.data.hold;
  assert.equal(h.movementId, gary.movement.id);
  assert.deepEqual(h.changes, { x: 900, y: 500 }); // where the drag ends
  assert.deepEqual(h.waypoints, [{ x: 900, y: 500, action: "walk" }]); // the rest of the path
  assert.equal(h.token.x, 1100); // held here
  assert.equal(h.userId, PLAYER);
  handler({ type: "holding", id: h.id }); // the GM's client took it
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(gary.movement.state, "paused");
  // the GM's release: Foundry hands the mover resumeMovement(movementId, key)
  gary.resumeMovement(h.movementId, h.id);
  await until("the rest of the drag", () => gary.x === 900);
  assert.equal(gary.movement.state, "completed");
  assert.deepEqual(gary.movement.chain, [h.movementId]); // the same movement, continued
});

test("the GM's stop leaves the token where it was paused", async () => {
  sent.length = 0;
  await drag(gary, [1200, 500]); // 9,5 -> 12,5 enters 10,5 on the first step: paused at once
  await until("the pause", () => gary.movement.state === "paused");
  assert.equal(gary.x, 900);
  const h = sent.at(-1).data.hold;
  handler({ type: "holding", id: h.id });
  handler({ type: "stop", sceneId: "s1", tokenId: "tGary", movementId: h.movementId });
  assert.equal(gary.movement.state, "stopped");
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(gary.x, 900);
});

test("with no GM answering, the paused drag resumes and the GM is told", async () => {
  sent.length = 0;
  await drag(gary, [1200, 500]);
  await until("the pause", () => gary.movement.state === "paused");
  await until("the fallback", () => gary.x === 1200, 30 + 500 + 500);
  const notice = calls.findLast((c) => c.op === "ChatMessage.create");
  assert.match(notice.data.content, /did not answer: Gary(&#39;|')s move went through/);
});
