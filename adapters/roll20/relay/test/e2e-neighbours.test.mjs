// End to end among other Mod scripts: the Mod script (unmodified) and a TokenMod stand-in in the
// sandbox stand-in, the built relay in a page-shaped Roll20 tab (jsdom) with the real
// socket.io-client, and a real `vttbridge serve`. A Fallout: Equestria fight: TokenMod moves Mint
// (a script's `set`, told to TokenMod's observers): the rules hear it like a drag and count it
// against her movement. Then Mint's player drags her farther than the rules allow: the bridge
// puts her back, and a third script that registered with VTTBridge.ObserveTokenChange (It's a
// Trap!, say, which judges traps on moves) hears the put-back, with where she had been dropped.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import { Roll20, PAGE_HTML, until, tick } from "./roll20-sandbox.mjs";
import { Bridge } from "./bridge.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const TOKENMOD = fileURLToPath(new URL("./tokenmod-standin.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/vttbridge-relay.user.js", import.meta.url));
const WORLD = "neighbours";
const px = (x, y) => [x * 70 + 35, y * 70 + 35];

let bridge;
let key;
let dom;
let r20;
let relay;
const heard = [];

before(async () => {
  bridge = new Bridge();
  key = bridge.world(WORLD, "foe");
  await bridge.start();
  dom = new JSDOM(PAGE_HTML, { url: "https://app.roll20.net/editor/", runScripts: "outside-only" });
  r20 = new Roll20({ dom: dom.window });
  r20.player("Dana", { gm: true, id: "-OPlayGM" });
  const cat = r20.player("Cat", { id: "-OPlayCat" });
  const page = r20.create("page", { _id: "-OPageRoad", name: "Road", width: 20, height: 15, grid_type: "square",
    snapping_increment: 1, scale_number: 5, scale_units: "ft", diagonaltype: "threefive" });
  r20.campaign.attributes.playerpageid = page.id;
  const character = (id, name, controlledby, stats) => {
    r20.create("character", { _id: id, name, controlledby });
    for (const [k, v] of Object.entries(stats)) r20.create("attribute", { _characterid: id, name: `vttb_${k}`, current: v });
  };
  character("-OCharMint", "Mint", cat.id, { move: "25", agility: "8" });
  character("-OCharRaider", "Raider", "", { move: "25" });
  const token = (id, name, [x, y], represents, controlledby = "") => {
    const [left, top] = px(x, y);
    r20.create("graphic", { _id: id, _subtype: "token", _pageid: page.id, name, left, top, width: 70, height: 70,
      layer: "objects", represents, controlledby, bar1_value: "20", bar1_max: "20", bar1_link: "", statusmarkers: "", lastmove: "" });
  };
  token("-OTokMint", "Mint", [2, 5], "-OCharMint", cat.id);
  token("-OTokRaider", "Raider", [12, 5], "-OCharRaider");
  r20.attachChatBox();
  r20.load(TOKENMOD, MOD);
  r20.ready();
  // a third script hears VTTBridge's writes to tokens
  r20.context.VTTBridge.ObserveTokenChange((obj, prev) => heard.push({ id: obj.id, left: obj.get("left"), prev: { left: prev.left, top: prev.top } }));
  dom.window.localStorage.setItem("vttbridge.relay", JSON.stringify({ url: bridge.url, world: WORLD, key }));
  dom.window.eval(readFileSync(BUNDLE, "utf8"));
  relay = dom.window.vttbridgeRelay;
  await until(() => relay.state === "connected", 10000, "the link");
  await until(async () => Object.keys((await bridge.state(WORLD, key)).tokens || {}).length === 2, 10000, "the snapshot");
});

after(async () => {
  if (relay) relay.stop();
  await tick(100);
  if (bridge) await bridge.close();
  if (dom) dom.window.close();
});

async function quiet() {
  let calm = 0;
  while (calm < 5) {
    await tick(20);
    calm = relay.pending.length || relay.commands.size ? 0 : calm + 1;
  }
}

test("a TokenMod move reaches the rules; a refused drag's put-back reaches another script", async () => {
  const state = () => bridge.state(WORLD, key);
  r20.type("-OPlayGM", "!init");
  await until(async () => (await state()).encounter?.round === 1, 8000, "the fight");
  for (let i = 0; i < 3 && (await state()).encounter.active !== "-OTokMint"; i++) {
    const at = (await state()).encounter.active;
    r20.type("-OPlayGM", "!next");
    await until(async () => (await state()).encounter.active !== at, 8000, "the next turn");
  }
  assert.equal((await state()).encounter.active, "-OTokMint");
  await quiet();

  // TokenMod moves Mint 4 cells east (20 ft): a script's set, heard through TokenMod's observer
  const [left] = px(6, 5);
  r20.type("-OPlayGM", `!token-mod --set left|${left} --ids -OTokMint`);
  await until(async () => (await state()).tokens["-OTokMint"].cell[0] === 6, 8000, "the rules to hear TokenMod's move");
  // counted against her movement like a drag: what is left is whispered to her player
  await until(() => r20.visibleChat().some((m) => /Mint: 5 ft left walking .*55 ft running/.test(m.content)), 8000,
    () => `the move counted; chat:\n${r20.visibleChat().map((m) => m.content).join("\n")}`);
  await quiet();

  // Mint's player drags her 12 cells on (60 ft, past her 75 ft run with the 20 already moved)
  const before = heard.length;
  const mint = r20.getObj("graphic", "-OTokMint");
  r20.drag("-OTokMint", px(18, 5));
  await until(() => mint.get("left") === px(6, 5)[0], 8000, "the refused drag put back");
  await quiet();
  const putBack = heard.slice(before).find((h) => h.id === "-OTokMint" && h.left === px(6, 5)[0]);
  assert.ok(putBack, JSON.stringify(heard));
  assert.deepEqual(putBack.prev, { left: px(18, 5)[0], top: px(18, 5)[1] }, "with where she had been dropped");
  assert.deepEqual((await state()).tokens["-OTokMint"].cell, [6, 5]);
});
