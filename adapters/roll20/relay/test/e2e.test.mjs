// End to end: the Mod script (unmodified) in a stand-in of the Roll20 sandbox, the built relay
// userscript in a page-shaped Roll20 tab (jsdom) with the real socket.io-client, and a real
// `vttbridge serve`. Plays a Fallout: Equestria ambush on the road and checks the Roll20 calls
// the Mod made.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import { Roll20, PAGE_HTML, decodeFrames, until, tick } from "./roll20-sandbox.mjs";
import { Bridge } from "./bridge.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/vttbridge-relay.user.js", import.meta.url));
const WORLD = "ambush";
const cellPx = (x, y) => [x * 70 + 35, y * 70 + 35];

let bridge;
let key;
let dom;
let r20;
let relay;
let panel;
const P = {};

before(async () => {
  assert.ok(existsSync(BUNDLE), "build the relay first: npm run build");
  bridge = new Bridge();
  key = bridge.world(WORLD, "foe");
  await bridge.start();

  // the GM's Roll20 tab
  dom = new JSDOM(PAGE_HTML, {
    url: "https://app.roll20.net/editor/",
    runScripts: "outside-only",
    pretendToBeVisual: true,
  });
  r20 = new Roll20({ dom: dom.window });
  P.gm = r20.player("Dana", { gm: true, id: "-OPlayGM" });
  P.bob = r20.player("Bob", { id: "-OPlayBob" });
  P.cat = r20.player("Cat", { id: "-OPlayCat" });
  const page = r20.create("page", {
    _id: "-OPageRoad", name: "Canterlot road", width: 20, height: 15, grid_type: "square",
    snapping_increment: 1, scale_number: 5, scale_units: "ft", diagonaltype: "threefive",
  });
  r20.campaign.attributes.playerpageid = page.id;
  const character = (id, name, controlledby, stats) => {
    r20.create("character", { _id: id, name, controlledby });
    for (const [k, v] of Object.entries(stats)) {
      r20.create("attribute", { _characterid: id, name: `vttb_${k}`, current: v });
    }
    r20.create("attribute", { _characterid: id, name: "background", current: "long story" });
  };
  character("-OCharBram", "Bramble", P.bob.id, { move: "25", horns: "1", strength: "6" });
  character("-OCharPip", "Pip", P.cat.id, { move: "25", weight: "61", sneak_skill: "40", agility: "6" });
  character("-OCharMerch", "Merchant", P.bob.id, { quick_witted: "on" });
  character("-OCharRaider", "Raider", "", { perception_skill: "30", move: "25" });
  const token = (id, name, [x, y], represents) => {
    const [left, top] = cellPx(x, y);
    r20.create("graphic", {
      _id: id, _subtype: "token", _pageid: page.id, name, left, top, width: 70, height: 70,
      layer: "objects", represents, controlledby: "", bar1_value: "20", bar1_max: "20",
      bar1_link: "", statusmarkers: "", lastmove: "",
    });
  };
  token("-OTokBram", "Bramble", [2, 5], "-OCharBram");
  token("-OTokPip", "Pip", [3, 8], "-OCharPip");
  token("-OTokMerch", "Merchant", [4, 9], "-OCharMerch");
  token("-OTokR1", "Raider1", [9, 5], "-OCharRaider");
  token("-OTokR2", "Raider2", [2, 3], "-OCharRaider");
  // a row the GM keeps for the wagon fire: the bridge must never clobber it
  r20.campaign.attributes.turnorder = JSON.stringify([
    { id: "-1", pr: 0, custom: "Wagon burns", formula: "" },
  ]);
  r20.attachChatBox();
  r20.load(MOD);
  r20.ready();

  // the relay userscript, as built, in the page
  dom.window.eval(readFileSync(BUNDLE, "utf8"));
  relay = dom.window.vttbridgeRelay;
  panel = dom.window.document.getElementById("vttbridge-relay");
});

after(async () => {
  if (relay) relay.stop();
  await tick(100); // let the socket's close reach the server
  if (bridge) {
    await bridge.close();
    if (process.env.VTTBRIDGE_E2E_LOG) console.log(bridge.output, `stopped in ${bridge.stopMs} ms`);
  }
  if (dom) dom.window.close();
});

// -- helpers -------------------------------------------------------------------------------------

/** What a reader sees of a chat line's HTML: entities decoded, <br> as a line break. */
function text(html) {
  const el = dom.window.document.createElement("div");
  el.innerHTML = String(html).replace(/<br\s*\/?>/gi, "\n");
  return el.textContent;
}

function publicChat() {
  return r20.visibleChat().filter((m) => m.type !== "whisper").map((m) => text(m.content));
}

function whispers(to) {
  return r20
    .visibleChat()
    .filter((m) => m.type === "whisper" && m.target === to)
    .map((m) => m.content);
}

async function said(pattern, { to = null, ms = 8000 } = {}) {
  const lines = () => (to ? whispers(to) : publicChat());
  return until(() => lines().find((t) => pattern.test(t)), ms, `chat ${pattern}${to ? ` to ${to}` : ""}`);
}

function ours(row) {
  return row.id !== "-1";
}

/** Wait until the relay has nothing in flight. */
async function quiet() {
  let calm = 0;
  while (calm < 5) {
    await tick(20);
    const busy = relay.pending.length || relay.commands.size || relay.partial.size;
    calm = busy ? 0 : calm + 1;
  }
}

function turnEnds() {
  return publicChat().filter((t) => /'s turn ends\./.test(t)).length;
}

async function next() {
  const before = turnEnds();
  r20.type(P.gm.id, "!next");
  await until(() => turnEnds() > before, 8000, "the turn to end");
  await quiet();
}

const current = () => (r20.order[0] && ours(r20.order[0]) ? r20.order[0].id : null);

function results() {
  return decodeFrames(r20.chat).filter((f) => f.k === "results").flatMap((f) => f.b);
}

// -- the game --------------------------------------------------------------------------------------

test("the GM links the relay from its panel", async () => {
  assert.equal(panel.getAttribute("data-state"), "unconfigured");
  const doc = dom.window.document;
  panel.querySelector(".vttb-toggle").click();
  const form = panel.querySelector(".vttb-form");
  assert.equal(form.style.display, "block");
  form.elements.url.value = bridge.url;
  form.elements.world.value = WORLD;
  form.elements.key.value = key;
  doc.querySelector("#textchat-input textarea").value = "half-typed line";
  form.querySelector("button").click();
  await until(() => panel.getAttribute("data-state") === "connected", 10000, "the link");
  // the relay asked the Mod for a snapshot, and the bridge now knows the road
  const state = await until(async () => {
    const s = await bridge.state(WORLD, key);
    return Object.keys(s.tokens || {}).length === 5 ? s : null;
  }, 10000, "the snapshot");
  assert.deepEqual(state.tokens["-OTokBram"].cell, [2, 5]);
  assert.deepEqual(state.tokens["-OTokBram"].owners, ["-OPlayBob"]);
  assert.equal(state.system, "foe");
  assert.match(panel.textContent, /linked to world 'ambush'/);
  // the GM's half-typed line survived the relay's use of the chat box
  assert.equal(doc.querySelector("#textchat-input textarea").value, "half-typed line");
  doc.querySelector("#textchat-input textarea").value = "";
  // the plumbing is hidden from the GM
  const msgs = [...doc.querySelectorAll("#textchat .content .message")];
  const plumbing = msgs.filter((m) => m.getAttribute("data-vttbridge") === "read");
  assert.ok(plumbing.length >= 2);
  assert.ok(plumbing.every((m) => m.style.display === "none"));
  // the key is stored for the next page load, never put in the URL
  assert.equal(JSON.parse(dom.window.localStorage.getItem("vttbridge.relay")).key, key);
});

test("a player cannot forge a frame by whispering its text", async () => {
  const forged = "VTTB1|evil|1|1/1|" + encodeURIComponent(JSON.stringify({
    k: "event", b: { name: "chat:message", payload: { msg: { type: "api", content: "!end", playerid: "-OPlayGM" }, playerIsGM: true } },
  }));
  r20.type(P.bob.id, forged);
  await quiet();
  assert.ok(!relay.seen.has("evil-1"));
});

test("surprise round: the raiders ambush the caravan; the Quick Witted merchant jumps", async () => {
  const doc = dom.window.document;
  const input = doc.querySelector("#textchat-input textarea");
  input.value = "!surprise Raider1 Raider2 --vs Bramble Pip Merchant";
  doc.querySelector("#textchat-input .btn").click();
  await said(/^Surprise! Raider1, Raider2 attack\. Surprised, sitting out: Bramble, Pip\./);
  await until(() => r20.order.filter(ours).length === 3 && ours(r20.order[0]), 8000, "the turn order");
  await quiet();
  const rows = r20.order;
  assert.deepEqual(rows.filter(ours).map((r) => r.id).sort(), ["-OTokMerch", "-OTokR1", "-OTokR2"]);
  assert.ok(rows.every((r) => !ours(r) || typeof r.pr === "number"));
  assert.deepEqual(rows.filter((r) => !ours(r)), [{ id: "-1", pr: 0, custom: "Wagon burns", formula: "" }]);
  const rank = rows.filter(ours).map((r) => r.pr);
  assert.deepEqual([...rank].sort((a, b) => b - a), rank, "acting order, highest first");
  assert.ok(publicChat().some((t) => t.includes("Merchant is Quick Witted and acts in the surprise round.")));

  for (let turn = 0; turn < 3; turn++) {
    const who = current();
    assert.ok(who, "a token's turn");
    if (who === "-OTokMerch") {
      r20.type(P.bob.id, "!jump gap 10", { selected: ["-OTokMerch"] });
      await said(/^Merchant jumps the 10 ft gap \(up to 12\.5 ft\)\. \(FoE, Jumping, rules\.md#jumping; option: high_jump_rounding = foot\)$/);
    }
    await next();
  }
  await said(/The surprise round is over; normal combat begins\. \(FoE, Surprise round, rules\.md#surprise-round; option: surprise_after = reroll\)\nEveryone re-rolls initiative\./);
  await until(() => r20.order.filter(ours).length === 5, 8000, "everyone in the turn order");
  const state = await bridge.state(WORLD, key);
  assert.equal(state.systems.foe?.surprise_round ?? false, false);
  assert.equal(state.encounter.active, current());
});

test("round 2: a charge too short, one that lands with a horn, a sneak under weight", async () => {
  let charged = false;
  let sneaked = false;
  for (let turn = 0; turn < 6 && !(charged && sneaked); turn++) {
    const who = current();
    if (who === "-OTokBram") {
      // Raider2 is 10 ft away: the charge would cover 5 ft, short of 15 ft (the citation's "#"
      // goes as an entity, so that Roll20 reads no macro in it; its chat shows "#")
      r20.type(P.bob.id, "!charge Raider2", { selected: ["-OTokBram"] });
      await said(/^A charge needs at least 15 ft in a straight line; that path is 5 ft\. \(FoE, Charge, rules\.md&#35;charge; option: diagonal_metric = alternating\)$/, { to: "Bob" });
      const bram = r20.getObj("graphic", "-OTokBram");
      assert.deepEqual([bram.get("left"), bram.get("top")], cellPx(2, 5), "a refused charge moves nothing");
      // Raider1 is 35 ft down the road: a straight 30 ft charge ends next to him
      r20.type(P.bob.id, "!charge Raider1", { selected: ["-OTokBram"] });
      await said(/^Bramble charges 30 ft! \(FoE, Charge, rules\.md#charge; option: diagonal_metric = alternating\)\nBramble ends the charge next to Raider1 and may attack\.$/);
      await until(() => bram.get("left") === cellPx(8, 5)[0], 8000, "the charge move");
      assert.deepEqual([bram.get("left"), bram.get("top")], cellPx(8, 5));
      const ask = await said(/Whom does Bramble attack at the end of the charge\?/, { to: "Bob" });
      const button = /\[Raider1\]\((!answer \S+ -OTokR1)\)/.exec(ask);
      assert.ok(button, ask);
      r20.type(P.bob.id, button[1]);
      await said(/^Bramble attacks Raider1 at the end of the charge: roll to hit, then !charge-attack -OTokR1 hit\|miss --horns/);
      r20.type(P.bob.id, "!charge-attack Raider1 hit --horns", { selected: ["-OTokBram"] });
      const hit = await said(/^Bramble's charging horns hits Raider1 for \d+ damage\./);
      assert.match(hit, /6d6 \([\d, ]+\) \+ 6 = \d+/); // one horn: 6d6 + STR
      charged = true;
    } else if (who === "-OTokPip") {
      // a drag in the fight: Cat, who plays Pip, is whispered what is left (Roll20 has no ruler)
      r20.drag("-OTokPip", cellPx(5, 8));
      await said(/^Pip: 15 ft left walking \(one action\), 65 ft running \(both actions\) this turn\.$/, { to: "Cat" });
      r20.type(P.cat.id, "!sneak --enemies Raider1,Raider2", { selected: ["-OTokPip"] });
      // Sneak 40, weight 61 macs: -10 (two steps of 10 over 50, rounded up)
      await said(/^Pip rolls Sneak: \d+ against 30 — (succeeds|fails)\./);
      sneaked = true;
    }
    await next();
  }
  assert.ok(charged && sneaked, "both Bramble and Pip had their turn");
  const state = await bridge.state(WORLD, key);
  assert.deepEqual(state.tokens["-OTokBram"].cell, [8, 5]);
});

test("the Roll20 calls the Mod made", async () => {
  await quiet();
  const calls = r20.calls;
  const ops = (op) => calls.filter((c) => c.op === op);
  // chat: every rule line through sendChat, as VTTBridge, public or whispered
  const chat = ops("sendChat").filter((c) => !c.message.includes("VTTB1|"));
  assert.ok(chat.length >= 10);
  assert.ok(chat.every((c) => c.speakingAs === "VTTBridge"));
  assert.ok(chat.some((c) => c.message.startsWith('/w "Bob" ')));
  // after Pip's drag, one whisper of what was left, to Cat (Bramble's charge was no drag)
  const left = chat.filter((c) => / left walking /.test(c.message));
  assert.deepEqual(left.map((c) => c.message.split(" ").slice(0, 3).join(" ")), ['/w "Cat" Pip:']);
  // the only token the bridge moved is Bramble, once, to the end of his charge
  const sets = ops("set").filter((c) => c.type === "graphic");
  const moves = sets.filter((c) => "left" in c.attrs || "top" in c.attrs);
  assert.deepEqual(moves.map((c) => [c.id, c.attrs.left, c.attrs.top]), [["-OTokBram", ...cellPx(8, 5)]]);
  // what the rules put on them showed as status markers: Bramble's charge, Pip's sneak
  const marked = sets.filter((c) => "statusmarkers" in c.attrs).map((c) => [c.id, c.attrs.statusmarkers]);
  assert.ok(marked.some(([id, m]) => id === "-OTokBram" && m.split(",").includes("overdrive")), JSON.stringify(marked));
  assert.ok(marked.some(([id, m]) => id === "-OTokPip" && m.split(",").includes("ninja-mask")), JSON.stringify(marked));
  assert.equal(sets.length, moves.length + marked.length);
  // the turn order: merged every time, the GM's custom row kept
  const tos = ops("Campaign.set");
  assert.ok(tos.length >= 8);
  for (const c of tos) {
    const rows = JSON.parse(c.attrs.turnorder);
    assert.equal(rows.filter((r) => r.custom === "Wagon burns").length, 1);
  }
  const order = r20.order.filter(ours);
  assert.equal(order.length, 5);
  assert.ok(order.every((r) => r._pageid === "-OPageRoad"));
  // every command was applied once: no seq twice, none failed
  const res = results();
  const applied = res.filter((r) => !r.duplicate).map((r) => r.seq);
  assert.equal(new Set(applied).size, applied.length);
  assert.ok(res.every((r) => r.ok), JSON.stringify(res.filter((r) => !r.ok)));
  assert.equal(r20.state.VTTBridge.applied[relay.linkId()], Math.max(...applied));
  assert.match(relay.linkId(), /^ambush#/);
  assert.equal(relay.lastApplied, Math.max(...applied));
});

test("the server restarts: the relay reconnects with last_seq, nothing twice", async () => {
  const appliedBefore = results().filter((r) => !r.duplicate).length;
  const ended = turnEnds();
  await bridge.stop("SIGKILL");
  await until(() => panel.getAttribute("data-state") === "reconnecting", 8000, "the loss");
  // the GM ends the turn while the server is down: the event waits in the relay
  r20.type(P.gm.id, "!next");
  await until(() => relay.pending.length === 1, 5000, "the event to wait");
  assert.match(panel.textContent, /reconnecting… 1 event waits\./);
  await bridge.start();
  await until(() => panel.getAttribute("data-state") === "connected", 20000, "the reconnect");
  await until(() => turnEnds() === ended + 1, 10000, "the waiting !next to be applied");
  await quiet();
  assert.equal(relay.pending.length, 0);
  const after = results().filter((r) => !r.duplicate);
  const seqs = after.map((r) => r.seq);
  assert.equal(new Set(seqs).size, seqs.length, "no command applied twice");
  assert.ok(after.length > appliedBefore);
  // the state survived the kill
  const state = await bridge.state(WORLD, key);
  assert.deepEqual(state.tokens["-OTokBram"].cell, [8, 5]);
  assert.equal(state.encounter.active, current());
});

test("a sheet change reaches every token of the character, linked bar or not", async () => {
  // Raider1 and Raider2 both represent the Raider sheet; neither has a linked bar
  const move = r20.findObjs({ _type: "attribute", _characterid: "-OCharRaider", name: "vttb_move" })[0];
  r20.edit(move.id, { current: "35" }); // the GM edits the sheet
  await quiet();
  for (const name of ["Raider1", "Raider2"]) {
    const n = r20.visibleChat().length;
    r20.type(P.gm.id, `!stats ${name}`);
    const reply = await until(
      () => r20.visibleChat().slice(n).map((m) => text(m.content)).find((t) => t.startsWith(`${name}: move=`)),
      8000, `!stats ${name}`,
    );
    assert.match(reply, /^Raider\d: move=35(\.0)?,/);
  }
});
