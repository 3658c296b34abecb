// The VTTBridge Mod script among other Mod scripts, unmodified, in the sandbox stand-in: Roll20
// fires no event for a script's `set`, so scripts tell each other through observers. A TokenMod
// move (the TokenMod stand-in tells its observers) reaches the rules like a drag; another
// script that registered with VTTBridge.ObserveTokenChange hears the Mod's writes: a held move
// put back, a set from the bridge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Roll20, decodeFrames, encode, tick } from "./roll20-sandbox.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const TOKENMOD = fileURLToPath(new URL("./tokenmod-standin.js", import.meta.url));

function game() {
  const r20 = new Roll20();
  const gm = r20.player("Dana", { gm: true, id: "-OPlayGM" });
  const page = r20.create("page", { _id: "-OPage01", name: "Cave", width: 25, height: 25, grid_type: "square",
    snapping_increment: 1, scale_number: 5, scale_units: "ft", diagonaltype: "foure", showgrid: true });
  r20.campaign.attributes.playerpageid = page.id;
  r20.create("graphic", { _id: "-OTokGob1", _subtype: "token", _pageid: page.id, name: "Goblin 1", left: 525, top: 385,
    width: 70, height: 70, layer: "objects", represents: "", controlledby: "", bar1_value: "7", bar1_max: "7",
    bar1_link: "", statusmarkers: "", lastmove: "" });
  r20.load(TOKENMOD, MOD); // one game: TokenMod is loaded first, as a GM may have it
  r20.ready();
  return { r20, gm };
}

async function events(r20, name) {
  await tick(5);
  return decodeFrames(r20.chat).filter((f) => f.k === "event" && f.b.name === name).map((f) => f.b.payload);
}

function command(r20, commands) {
  r20.type("-OPlayGM", `!vttbridge ${encode(JSON.stringify({ world: "w1", commands }))}`);
}

test("a TokenMod move reaches the bridge as a move, with what it was before", async () => {
  const { r20 } = game();
  r20.type("-OPlayGM", "!token-mod --set left|665 top|385 --ids -OTokGob1");
  await tick(5);
  const gob = r20.getObj("graphic", "-OTokGob1");
  assert.equal(gob.get("left"), 665); // TokenMod moved it, with a set: no change event
  const [moved] = await events(r20, "change:graphic");
  assert.ok(moved, "the Mod heard it through TokenMod's observer");
  assert.equal(moved.obj.left, 665);
  assert.equal(moved.prev.left, 525);
  // a bar TokenMod sets is heard too
  r20.type("-OPlayGM", "!token-mod --set bar1_value|3 --ids -OTokGob1");
  const changes = await events(r20, "change:graphic");
  assert.equal(changes.at(-1).obj.bar1_value, 3);
  assert.equal(changes.at(-1).prev.bar1_value, "7");
  // and the bridge never sees TokenMod's own command
  assert.ok(!(await events(r20, "chat:message")).some((m) => /token-mod/.test(m.msg.content)));
});

test("the Mod's writes are told to the scripts observing it: a held move put back, a set", async () => {
  const { r20 } = game();
  const heard = [];
  // another script (It's a Trap!, say) registers with the Mod, as with TokenMod
  r20.context.VTTBridge.ObserveTokenChange((obj, prev) =>
    heard.push({ id: obj.id, left: obj.get("left"), prevLeft: prev.left, prevLastmove: prev.lastmove }));
  command(r20, [{ seq: 1, op: "watch", data: { page: "-OPage01", watches: [{ cells: [[9, 5]], token: null, exclude: null }] } }]);
  await tick(5);
  r20.drag("-OTokGob1", [595, 315], [665, 385]); // into the watched cell: held, put back at once
  assert.deepEqual(heard, [{ id: "-OTokGob1", left: 525, prevLeft: 665, prevLastmove: "525,385,595,315" }]);
  // the bridge completes the move
  command(r20, [{ seq: 2, op: "set", data: { type: "graphic", id: "-OTokGob1", attrs: { left: 665, top: 385 } } }]);
  await tick(5);
  assert.deepEqual(heard[1], { id: "-OTokGob1", left: 665, prevLeft: 525, prevLastmove: "" });
  // a script that registers twice is told once; a broken observer does not stop the others
  r20.context.VTTBridge.ObserveTokenChange(() => {
    throw new Error("a broken observer");
  });
  command(r20, [{ seq: 3, op: "set", data: { type: "graphic", id: "-OTokGob1", attrs: { left: 595 } } }]);
  await tick(5);
  assert.equal(heard.length, 3);
  assert.ok(r20.logs.some((l) => /an observer failed: a broken observer/.test(l)));
});

test("the observe setting names other scripts' observers; --status shows it", async () => {
  const { r20 } = game();
  r20.type("-OPlayGM", "!vttbridge --set observe -TokenMod.ObserveTokenChange");
  await tick(5);
  assert.deepEqual([...r20.state.VTTBridge.settings.observe], ["ChatSetAttr.registerObserver:change"]);
  r20.type("-OPlayGM", "!vttbridge --set observe +TokenMod.ObserveTokenChange");
  await tick(5);
  assert.ok(r20.state.VTTBridge.settings.observe.includes("TokenMod.ObserveTokenChange"));
});
