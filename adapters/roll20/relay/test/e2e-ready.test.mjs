// End to end, Spycraft 2.0: a Ready that intercedes on a move's *attempt*. Roll20 has no "before
// move" event, so the Mod puts the thug back where he started, the bridge resolves Kevin's Ready
// (his player answers "fire"), then completes the move with a `set`. The holds script that rules
// on it is a built-in of every world (sdk/holds.py): no `--script` needed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import { Roll20, PAGE_HTML, until, tick } from "./roll20-sandbox.mjs";
import { Bridge } from "./bridge.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/vttbridge-relay.user.js", import.meta.url));
const WORLD = "corner";
const px = (x, y) => [x * 70 + 35, y * 70 + 35];

let bridge;
let key;
let dom;
let r20;
let relay;
const P = {};

before(async () => {
  bridge = new Bridge();
  key = bridge.world(WORLD, "spycraft");
  await bridge.start();
  dom = new JSDOM(PAGE_HTML, { url: "https://app.roll20.net/editor/", runScripts: "outside-only" });
  r20 = new Roll20({ dom: dom.window });
  P.gm = r20.player("Dana", { gm: true, id: "-OPlayGM" });
  P.bob = r20.player("Bob", { id: "-OPlayBob" });
  const page = r20.create("page", { _id: "-OPageWh", name: "Warehouse", snapping_increment: 1,
    scale_number: 5, scale_units: "ft", diagonaltype: "threefive" });
  r20.campaign.attributes.playerpageid = page.id;
  r20.create("character", { _id: "-OCharKev", name: "Kevin", controlledby: P.bob.id });
  for (const [k, v] of Object.entries({ initiative: "5", reflex: "4" })) {
    r20.create("attribute", { _characterid: "-OCharKev", name: `vttb_${k}`, current: v });
  }
  const token = (id, name, [x, y], represents = "") => {
    const [left, top] = px(x, y);
    r20.create("graphic", { _id: id, _subtype: "token", _pageid: page.id, name, left, top,
      layer: "objects", represents, controlledby: "", lastmove: "" });
  };
  token("-OTokKev", "Kevin", [2, 2], "-OCharKev");
  token("-OTokThug", "Thug", [9, 2]);
  r20.attachChatBox();
  r20.load(MOD);
  r20.ready();
  dom.window.localStorage.setItem("vttbridge.relay", JSON.stringify({ url: bridge.url, world: WORLD, key }));
  dom.window.eval(readFileSync(BUNDLE, "utf8"));
  relay = dom.window.vttbridgeRelay;
  await until(() => relay.state === "connected", 10000, "the link");
  await until(async () => Object.keys((await bridge.state(WORLD, key)).tokens || {}).length === 2,
    10000, "the snapshot");
});

after(async () => {
  if (relay) relay.stop();
  await tick(100);
  if (bridge) await bridge.close();
  if (dom) dom.window.close();
});

const chat = () => r20.visibleChat().map((m) => `${m.type === "whisper" ? `@${m.target} ` : ""}${m.content}`);

async function quiet() {
  let calm = 0;
  while (calm < 5) {
    await tick(20);
    calm = relay.pending.length || relay.commands.size ? 0 : calm + 1;
  }
}

test("Kevin readies a shot on the attempt; the thug's move waits for it", async () => {
  r20.type(P.gm.id, "!init");
  await until(() => r20.order.length === 2, 8000, "the combat");
  await quiet();
  // whose turn it is according to the rules (initiative is rolled, so ask the bridge; Roll20's
  // own tracker may list exact IC ties in another order)
  const active = async () => (await bridge.state(WORLD, key)).encounter?.active;
  for (let i = 0; i < 3 && (await active()) !== "-OTokKev"; i++) {
    const ends = chat().length;
    r20.type(P.gm.id, "!next");
    await until(() => chat().length > ends, 8000, "the next turn");
    await quiet();
  }
  assert.equal(await active(), "-OTokKev", chat().join("\n"));
  r20.type(P.bob.id, "!ready shoot --when within 10 --timing attempt", { selected: ["-OTokKev"] });
  // the bridge tells the Mod which moves to hold: those coming within 10 ft of Kevin
  const watch = await until(() => r20.state.VTTBridge.watch.watches[0], 8000,
    () => `the watch; chat so far:\n${chat().join("\n")}`);
  assert.equal(watch.exclude, "-OTokKev");
  assert.ok(watch.cells["4,2"] && !watch.cells["9,2"]);
  await quiet();

  // the thug walks toward Kevin: held, put back at once
  r20.drag("-OTokThug", px(6, 2), px(4, 2));
  const thug = r20.getObj("graphic", "-OTokThug");
  assert.deepEqual([thug.get("left"), thug.get("top")], px(9, 2));
  // Kevin's player is asked, while the thug still stands where he was
  const ask = await until(() => chat().find((t) => t.startsWith("@Bob ") && /fire/.test(t) && /!answer/.test(t)),
    8000, "Kevin's prompt");
  await quiet();
  assert.deepEqual([thug.get("left"), thug.get("top")], px(9, 2));
  const answer = /\(!answer (\S+) fire\)/.exec(ask);
  assert.ok(answer, ask);
  r20.type(P.bob.id, `!answer ${answer[1]} fire`);
  // the Ready resolved: the move completes, with its path
  await until(() => thug.get("left") === px(4, 2)[0], 8000, "the move to complete");
  const [sx, sy] = px(9, 2);
  const [wx, wy] = px(6, 2);
  assert.equal(thug.get("lastmove"), `${sx},${sy},${wx},${wy}`);
  assert.deepEqual(JSON.parse(JSON.stringify(r20.state.VTTBridge.holds)), {});
  const state = await bridge.state(WORLD, key);
  assert.deepEqual(state.tokens["-OTokThug"].cell, [4, 2]);
  // the chat told the table what happened: the trigger, the shot, and only then the move
  if (process.env.SHOW_CHAT) console.log(chat().join("\n"));
  const at = (re) => r20.calls.findIndex((c) => c.op === "sendChat" && re.test(c.message));
  const triggered = at(/the trigger of Kevin's Ready occurs \(Thug comes within range\)/);
  const shot = at(/Kevin takes his readied action: shoot \(before the task, as it is attempted\)/);
  const moved = r20.calls.findIndex((c) => c.op === "set" && c.id === "-OTokThug" && c.attrs.left === px(4, 2)[0]);
  assert.ok(triggered >= 0 && shot > triggered && moved > shot, JSON.stringify({ triggered, shot, moved }));
  // the watch is gone once the Ready fired
  await until(() => r20.state.VTTBridge.watch.watches.length === 0, 8000, "the watch to end");
});
