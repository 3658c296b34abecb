// End to end, Spycraft 2.0: what the rules change reaches the sheets and the tokens, through the
// Mod script (unmodified) in the sandbox stand-in, the built relay in a page-shaped Roll20 tab,
// and a real `vttbridge serve`.
//
// Kevin (his character's vttb_ attributes) stands off Vic. Two tokens represent the character
// Vic; each keeps its own wound points and stress in its bars (bar2, bar3). Kevin's spent action
// die goes to his vttb_action_dice attribute and stays spent across a re-sent snapshot, a sheet
// edit of another stat and a server restart. At the next round Vic cracks and is struck: -1
// wound points and his stress go to his token's bars, not his twin's. The stand off shows as
// status markers while it lasts. The GM then sets Kevin's action dice on his sheet: the rules
// follow and say so.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import { Roll20, PAGE_HTML, decodeFrames, until, tick } from "./roll20-sandbox.mjs";
import { Bridge } from "./bridge.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/vttbridge-relay.user.js", import.meta.url));
const WORLD = "docks";
const px = (x, y) => [x * 70 + 35, y * 70 + 35];

let bridge;
let key;
let dom;
let r20;
let relay;
const P = {};
const A = {}; // attributes by name

before(async () => {
  bridge = new Bridge();
  key = bridge.world(WORLD, "spycraft");
  await bridge.start();
  dom = new JSDOM(PAGE_HTML, { url: "https://app.roll20.net/editor/", runScripts: "outside-only" });
  r20 = new Roll20({ dom: dom.window });
  P.gm = r20.player("Dana", { gm: true, id: "-OPlayGM" });
  P.bob = r20.player("Bob", { id: "-OPlayBob" });
  const page = r20.create("page", { _id: "-OPageDock", name: "Docks", snapping_increment: 1,
    scale_number: 5, scale_units: "ft", diagonaltype: "threefive" });
  r20.campaign.attributes.playerpageid = page.id;
  const character = (id, name, controlledby, stats) => {
    r20.create("character", { _id: id, name, controlledby });
    for (const [k, v] of Object.entries(stats)) {
      A[`${name}.${k}`] = r20.create("attribute", { _characterid: id, name: `vttb_${k}`, current: v });
    }
  };
  character("-OCharKev", "Kevin", P.bob.id, { initiative: "5", reflex: "14", action_dice: "2", bab: "3", wisdom: "12", resolve: "30" });
  character("-OCharVic", "Vic", "", { bab: "1", reflex: "1", wisdom: "1", resolve: "-10" });
  const token = (id, name, [x, y], represents, bars = {}) => {
    const [left, top] = px(x, y);
    r20.create("graphic", { _id: id, _subtype: "token", _pageid: page.id, name, left, top,
      layer: "objects", represents, controlledby: "", lastmove: "", statusmarkers: "",
      bar1_value: "", bar1_link: "", bar2_value: "", bar2_link: "", bar3_value: "", bar3_link: "", ...bars });
  };
  token("-OTokKev", "Kevin", [2, 2], "-OCharKev");
  token("-OTokVic", "Vic", [4, 2], "-OCharVic", { bar2_value: "10", bar3_value: "0" });
  token("-OTokTwin", "Twin", [12, 9], "-OCharVic", { bar2_value: "10", bar3_value: "0" });
  r20.attachChatBox();
  r20.load(MOD);
  r20.ready();
  r20.state.VTTBridge.settings.bars = { bar1: "hp", bar2: "wounds", bar3: "stress" };
  dom.window.localStorage.setItem("vttbridge.relay", JSON.stringify({ url: bridge.url, world: WORLD, key }));
  dom.window.eval(readFileSync(BUNDLE, "utf8"));
  relay = dom.window.vttbridgeRelay;
  await until(() => relay.state === "connected", 10000, "the link");
  await until(async () => Object.keys((await bridge.state(WORLD, key)).tokens || {}).length === 3,
    10000, "the snapshot");
});

after(async () => {
  if (relay) relay.stop();
  await tick(100);
  if (bridge) await bridge.close();
  if (dom) dom.window.close();
});

const chat = () => r20.visibleChat().map((m) => `${m.type === "whisper" ? `@${m.target} ` : ""}${m.content}`);
const tokenOf = (id) => r20.getObj("graphic", id);
const markers = (id) => String(tokenOf(id).get("statusmarkers") || "").split(",").filter(Boolean).sort();

async function quiet() {
  let calm = 0;
  while (calm < 5) {
    await tick(20);
    calm = relay.pending.length || relay.commands.size || relay.partial.size ? 0 : calm + 1;
  }
}

async function gm(text) {
  const n = chat().length;
  r20.type(P.gm.id, text);
  await until(() => chat().length > n, 8000, `an answer to ${text}`);
  await quiet();
}

/** `!stats` as the GM: the reply whispered to her. */
async function stats(who) {
  const n = chat().length;
  r20.type(P.gm.id, `!stats ${who}`);
  return until(() => chat().slice(n).find((t) => t.startsWith(`@Dana ${who}: kind=`)), 8000, `!stats ${who}`);
}

const active = async () => (await bridge.state(WORLD, key)).encounter?.active;
const snapshots = () => decodeFrames(r20.chat).filter((f) => f.k === "event" && f.b.name === "snapshot").length;

test("Kevin stands off Vic: the action die goes to his sheet, the stand off onto both tokens", async () => {
  await gm("!init");
  await until(() => r20.order.length === 3, 8000, "the combat");
  for (let i = 0; i < 4 && (await active()) !== "-OTokVic"; i++) await gm("!next");
  assert.equal(await active(), "-OTokVic", chat().join("\n"));
  r20.type(P.gm.id, "!attack Kevin", { selected: ["-OTokVic"] });
  const ask = await until(() => chat().find((t) => t.startsWith("@Bob ") && /Stand off\?/.test(t)), 8000, "Kevin's offer");
  const answer = /\(!answer (\S+) stand_off\)/.exec(ask);
  assert.ok(answer, ask);
  r20.type(P.bob.id, `!answer ${answer[1]} stand_off`);
  await until(() => A["Kevin.action_dice"].get("current") === 1, 8000, "the die spent on the sheet");
  assert.ok(r20.calls.some((c) => c.op === "setWithWorker" && c.id === A["Kevin.action_dice"].id));
  await until(() => markers("-OTokVic").length === 2, 8000, "the markers");
  assert.deepEqual(markers("-OTokKev"), ["archery-target", "broken-shield"]);
  assert.deepEqual(markers("-OTokVic"), ["archery-target", "broken-shield"]);
  assert.deepEqual(markers("-OTokTwin"), []);
  await quiet();
});

test("the die stays spent: a re-sent snapshot, a sheet edit of another stat, a restart", async () => {
  const sent = snapshots();
  r20.type(P.gm.id, "!vttbridge --snapshot"); // the Mod sends the page again
  await until(() => snapshots() > sent, 8000, "the snapshot");
  await quiet();
  assert.match(await stats("Kevin"), /action_dice=1,/);
  r20.edit(A["Kevin.reflex"].id, { current: "15" }); // the GM edits Kevin's sheet
  await quiet();
  const edited = await stats("Kevin");
  assert.match(edited, /reflex=15,/);
  assert.match(edited, /action_dice=1,/);
  await bridge.stop("SIGKILL");
  await until(() => relay.state !== "connected", 8000, "the loss");
  await bridge.start();
  await until(() => relay.state === "connected", 20000, "the reconnect");
  await quiet();
  assert.match(await stats("Kevin"), /action_dice=1,/);
});

test("Vic cracks and is struck: wounds and stress in his own bars; markers come off", async () => {
  let crack;
  for (let i = 0; i < 5 && !crack; i++) {
    await gm("!next");
    crack = chat().find((t) => t.startsWith("@gm ") && /Vic cracks!/.test(t));
  }
  const answer = /\(!answer (\S+) be_attacked\)/.exec(crack);
  assert.ok(answer, chat().join("\n"));
  await gm(`!answer ${answer[1]} be_attacked`);
  const vic = tokenOf("-OTokVic");
  await until(() => vic.get("bar2_value") === "-1", 8000, "Vic's wound points in his bar");
  const stress = Number(vic.get("bar3_value"));
  assert.ok(stress >= 2, `stress ${stress}`);
  assert.deepEqual([tokenOf("-OTokTwin").get("bar2_value"), tokenOf("-OTokTwin").get("bar3_value")], ["10", "0"]);
  assert.equal(r20.findObjs({ _type: "attribute", _characterid: "-OCharVic", name: "vttb_wounds" }).length, 0);
  await until(() => markers("-OTokKev").length === 0, 8000, "Kevin's markers off");
  assert.deepEqual(markers("-OTokVic"), ["half-heart"]); // dying
  const vicNow = await stats("Vic");
  assert.match(vicNow, /wounds=-1,/);
  assert.match(vicNow, new RegExp(`stress=${stress}`));
});

test("the GM sets Kevin's action dice on his sheet: the rules follow and say so", async () => {
  r20.edit(A["Kevin.action_dice"].id, { current: "3" });
  await until(() => chat().some((t) => t === "@gm Kevin's action dice set to 3 on the sheet; the rules follow."), 8000, "the GM told");
  assert.match(await stats("Kevin"), /action_dice=3,/);
  await quiet();
  const results = decodeFrames(r20.chat).filter((f) => f.k === "results").flatMap((f) => f.b);
  assert.ok(results.every((r) => r.ok && !r.skipped), JSON.stringify(results.filter((r) => !r.ok || r.skipped)));
});
