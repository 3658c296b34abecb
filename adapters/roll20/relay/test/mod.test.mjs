// The VTTBridge Mod script, unmodified, under Node against a stand-in of the Roll20 sandbox.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Roll20, decodeFrames, encode, tick, until } from "./roll20-sandbox.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const CASES = fileURLToPath(new URL("../../../../tests/adapters/roll20/merge_cases.json", import.meta.url));

function campaign({ snapping = 1 } = {}) {
  const r20 = new Roll20();
  const gm = r20.player("Dana", { gm: true, id: "-OPlayGM" });
  const bob = r20.player("Bob", { id: "-OPlay02" });
  const page = r20.create("page", {
    _id: "-OPage01", name: "Goblin Cave", width: 25, height: 25, grid_type: "square",
    snapping_increment: snapping, scale_number: 5, scale_units: "ft", diagonaltype: "foure",
    showgrid: true,
  });
  r20.campaign.attributes.playerpageid = page.id;
  const kev = r20.create("character", { _id: "-OCharKev", name: "Kevin", controlledby: bob.id });
  r20.create("attribute", { _characterid: kev.id, name: "vttb_move", current: "30" });
  r20.create("attribute", { _characterid: kev.id, name: "hp", current: "12" });
  const token = (id, name, left, top, extra = {}) =>
    r20.create("graphic", {
      _id: id, _subtype: "token", _pageid: page.id, name, left, top, width: 70, height: 70,
      layer: "objects", represents: "", controlledby: "", bar1_value: "7", bar1_max: "7",
      bar1_link: "", statusmarkers: "", lastmove: "", imgsrc: "https://x/thumb.png",
      gmnotes: "secret", ...extra,
    });
  token("-OTokGob1", "Goblin 1", 525, 385);
  token("-OTokPC01", "Kevin", 175, 175, { represents: kev.id });
  token("-OMapArt", "Floor", 875, 875, { layer: "map" });
  r20.load(MOD);
  r20.ready();
  return { r20, gm, bob, page };
}

/** Objects made in the sandbox's realm, as plain data (deepStrictEqual checks prototypes). */
const plain = (x) => JSON.parse(JSON.stringify(x));

async function frames(r20, kind) {
  await tick(5);
  const all = decodeFrames(r20.chat);
  return kind ? all.filter((f) => f.k === kind) : all;
}

async function events(r20, name) {
  return (await frames(r20, "event")).filter((f) => !name || f.b.name === name).map((f) => f.b);
}

test("ready: state with a schema version, and a hello frame", async () => {
  const { r20 } = campaign();
  assert.equal(r20.state.VTTBridge.version, 3);
  assert.equal(r20.state.VTTBridge.settings.chat, "commands");
  const hello = await frames(r20, "hello");
  assert.equal(hello.length, 1);
  assert.equal(hello[0].b.version, "0.1.0");
  // the frame is a hidden, non-archived whisper to the GM
  const call = r20.calls.find((c) => c.op === "sendChat");
  assert.match(call.message, /^\/w gm <div style="display:none">VTTB1\|[a-z0-9]+\|1\|1\/1\|/);
  assert.equal(call.options.noarchive, true);
});

test("state from an older schema is migrated", async () => {
  const r20 = new Roll20();
  r20.state.VTTBridge = { version: 1, epoch: "old", outSeq: 41, lastApplied: 17, settings: { chat: "all" } };
  r20.load(MOD);
  r20.ready();
  const s = r20.state.VTTBridge;
  assert.equal(s.version, 3);
  assert.deepEqual(plain(s.applied), { "*": 17 });
  assert.equal(s.lastApplied, undefined);
  assert.equal(s.settings.chat, "all"); // kept
  assert.equal(s.settings.holdTimeout, 30); // added
  assert.equal(s.epoch, "old");
  const [hello] = await frames(r20, "hello");
  assert.equal(hello.key, "old-42"); // the sequence goes on
});

test("v2 watches (cells and tokens) become v3 watch entries", () => {
  const r20 = new Roll20();
  r20.state.VTTBridge = { version: 2, epoch: "e", outSeq: 1, applied: {}, settings: {}, holds: {},
    watch: { page: "p", cells: { "9,5": true }, tokens: { t1: true } } };
  r20.load(MOD);
  r20.ready();
  assert.deepEqual(plain(r20.state.VTTBridge.watch), { page: "p", maxHoldMs: null, watches: [
    { cells: { "9,5": true }, token: null, exclude: null },
    { cells: null, token: "t1", exclude: null },
  ] });
});

test("a diagonal move is one event, with prev, page and lastmove", async () => {
  const { r20 } = campaign();
  let propertyCalls = 0; // another script's property handlers see two changes
  r20.handlers.push(["change:graphic:left", () => propertyCalls++]);
  r20.handlers.push(["change:graphic:top", () => propertyCalls++]);
  r20.drag("-OTokGob1", [595, 315], [665, 385]);
  r20.drag("-OTokGob1", [735, 315]); // diagonal: left and top change together
  const moves = await events(r20, "change:graphic");
  assert.equal(moves.length, 2);
  assert.equal(propertyCalls, 3);
  const [first, second] = moves.map((b) => b.payload);
  assert.equal(first.obj.left, 665);
  assert.equal(first.obj.lastmove, "525,385,595,315");
  assert.equal(first.prev.left, 525);
  assert.equal(first.page.snapping_increment, 1);
  assert.deepEqual(first.bars, { bar1: "hp" });
  assert.equal(first.obj.imgsrc, undefined); // not sent: size and privacy
  assert.equal(first.obj.gmnotes, undefined);
  assert.equal(second.obj.left, 735);
  assert.equal(second.obj.top, 315);
});

test("the same change reported twice is handled once", async () => {
  const { r20 } = campaign();
  const obj = r20.drag("-OTokGob1", [595, 385]);
  const prev = { ...obj.toJSON(), left: 525 };
  r20.fire("change:graphic", obj, prev); // Roll20 repeating itself
  assert.equal((await events(r20, "change:graphic")).length, 1);
});

test("changes the rules do not read are not sent", async () => {
  const { r20 } = campaign();
  r20.edit("-OTokGob1", { rotation: 90, tint_color: "#ff0000" });
  assert.equal((await events(r20, "change:graphic")).length, 0);
  r20.edit("-OTokGob1", { bar1_value: "4", statusmarkers: "red,blue@3" });
  const [ev] = await events(r20, "change:graphic");
  assert.equal(ev.payload.obj.bar1_value, "4");
  assert.equal(ev.payload.prev.bar1_value, "7");
});

test("a dropped token is one add, after it settles", async () => {
  const { r20 } = campaign();
  const tok = r20.drop({ _pageid: "-OPage01", name: "Raider", left: 100, top: 100 });
  r20.edit(tok.id, { left: 105, top: 105 }); // Roll20 snaps it to the grid
  assert.equal((await events(r20, "change:graphic")).length, 0);
  await until(async () => (await events(r20, "add:graphic")).length === 1, 3000, "the add");
  const [add] = await events(r20, "add:graphic");
  assert.equal(add.payload.obj.left, 105);
  r20.fire("destroy:graphic", tok);
  const [gone] = await events(r20, "destroy:graphic");
  assert.equal(gone.payload.obj._id, tok.id);
});

test("turn order changes carry prev; identical ones are dropped", async () => {
  const { r20 } = campaign();
  r20.turnorder([{ id: "-OTokPC01", pr: 19, custom: "" }, { id: "-OTokGob1", pr: "12", custom: "" }]);
  r20.turnorder([{ id: "-OTokGob1", pr: "12", custom: "" }, { id: "-OTokPC01", pr: 19, custom: "" }]);
  const evs = await events(r20, "change:campaign:turnorder");
  assert.equal(evs.length, 2);
  assert.equal(evs[0].payload.prev.turnorder, "");
  assert.equal(JSON.parse(evs[1].payload.prev.turnorder)[0].id, "-OTokPC01");
  assert.equal(JSON.parse(evs[1].payload.obj.turnorder)[0].id, "-OTokGob1");
});

test("chat: ! commands go with playerIsGM; plain chat stays unless asked", async () => {
  const { r20, bob, gm } = campaign();
  r20.type(bob.id, "!ready attack --when enters:corner --roll [[1d20+5]]", {
    selected: ["-OTokPC01"], rolls: [19],
  });
  r20.type(bob.id, "hello there");
  r20.type(gm.id, "!next");
  await tick(5);
  const chats = (await events(r20, "chat:message")).map((b) => b.payload);
  assert.equal(chats.length, 2);
  assert.equal(chats[0].msg.content, "!ready attack --when enters:corner --roll $[[0]]");
  assert.equal(chats[0].msg.inlinerolls[0].results.total, 19);
  assert.deepEqual(chats[0].msg.selected, [{ _id: "-OTokPC01", _type: "graphic" }]);
  assert.equal(chats[0].playerIsGM, false);
  assert.equal(chats[1].playerIsGM, true);
  r20.type(gm.id, "!vttbridge --set chat all");
  await tick(5);
  r20.type(bob.id, "now everything");
  const all = (await events(r20, "chat:message")).map((b) => b.payload.msg.content);
  assert.ok(all.includes("now everything"));
  // its own lines never go back to the bridge
  assert.ok(!all.some((c) => c.includes("VTTB1|")));
});

test("other Mod scripts' commands stay in Roll20", async () => {
  const { r20, gm } = campaign();
  r20.type(gm.id, "!token-mod --set bar1_value|3");
  r20.type(gm.id, "!vttbridge --set ignore +loot,-eot");
  await tick(5);
  r20.type(gm.id, "!loot chest");
  r20.type(gm.id, "!eot");
  r20.type(gm.id, "!ambush");
  const sent = (await events(r20, "chat:message")).map((b) => b.payload.msg.content);
  assert.deepEqual(sent, ["!eot", "!ambush"]);
  assert.ok(plain(r20.state.VTTBridge.settings.ignore).includes("loot"));
});

test("--status and --help answer the GM; players are refused", async () => {
  const { r20, gm, bob } = campaign();
  r20.type(gm.id, "!vttbridge --status");
  r20.type(gm.id, "!vttbridge --help");
  r20.type(bob.id, "!vttbridge --status");
  r20.type(bob.id, "!vttbridge " + encode(JSON.stringify({ seq: 1, op: "sendChat", data: { message: "pwned" } })));
  await tick(5);
  const seen = r20.visibleChat().map((m) => `${m.target}: ${m.content}`);
  assert.ok(seen.some((t) => t.startsWith("gm: <div><b>VTTBridge status</b><br>version: 0.1.0 (state v3)")));
  assert.ok(seen.some((t) => t.includes("!vttbridge --snapshot: send the whole page")));
  assert.ok(seen.some((t) => t === "Bob: Only the GM may use !vttbridge."));
  assert.ok(!r20.calls.some((c) => c.message === "pwned"));
});

test("--snapshot: the page, its tokens, players, characters and turn order", async () => {
  const { r20, gm } = campaign();
  r20.campaign.attributes.turnorder = JSON.stringify([{ id: "-OTokGob1", pr: 12, custom: "" }]);
  r20.type(gm.id, "!vttbridge --snapshot");
  await tick(5);
  const [snap] = await events(r20, "snapshot");
  const p = snap.payload;
  assert.equal(p.page._id, "-OPage01");
  assert.equal(p.page.scale_number, 5);
  assert.deepEqual(p.graphics.map((g) => g._id).sort(), ["-OTokGob1", "-OTokPC01"]);
  assert.deepEqual(
    p.players.map((x) => [x._displayname, x.isGM]).sort(),
    [["Bob", false], ["Dana", true]],
  );
  assert.deepEqual(p.characters, [{ _id: "-OCharKev", name: "Kevin", controlledby: "-OPlay02", stats: { move: "30" } }]);
  assert.equal(JSON.parse(p.campaign.turnorder)[0].id, "-OTokGob1");
});

test("a long payload is split into chunks and joined again", async () => {
  const { r20, gm } = campaign();
  for (let i = 0; i < 60; i++) {
    r20.create("graphic", { _subtype: "token", _pageid: "-OPage01", layer: "objects",
      name: `Raider with a long name number ${i}`, left: 35 + 70 * (i % 20), top: 35, controlledby: "" });
  }
  r20.type(gm.id, "!vttbridge --snapshot");
  await tick(5);
  const [snap] = (await frames(r20, "event")).filter((f) => f.b.name === "snapshot");
  assert.ok(snap.parts > 1, `expected several parts, got ${snap.parts}`);
  assert.equal(snap.b.payload.graphics.length, 62);
});

function command(r20, commands) {
  r20.type(r20.gm, "!vttbridge " + encode(JSON.stringify({ world: "w1", commands })));
}

test("commands: sendChat, set (pixels or a cell), results, duplicates", async () => {
  const { r20 } = campaign({ snapping: 0.5 });
  command(r20, [
    { seq: 12, op: "sendChat", data: { speakingAs: "VTTBridge", message: "/w gm Goblin 1 triggers Kevin's Ready action.", options: { noarchive: false } } },
    { seq: 13, op: "set", data: { type: "graphic", id: "-OTokGob1", attrs: { left: 595, top: 385 } } },
    { seq: 15, op: "set", data: { type: "graphic", id: "-OTokPC01", attrs: { left: 1, top: 1 }, cell: { x: 4, y: 6 } } },
    { seq: 16, op: "set", data: { type: "graphic", id: "-ONope", attrs: { left: 1 } } },
    { seq: 17, op: "explode", data: {} },
  ]);
  await tick(5);
  const [res] = await frames(r20, "results");
  assert.deepEqual(res.b, [
    { seq: 12, ok: true },
    { seq: 13, ok: true },
    { seq: 15, ok: true },
    { seq: 16, ok: false, error: { code: "unknown_token", message: "no graphic -ONope" } },
    { seq: 17, ok: false, error: { code: "unknown_op", message: "no such operation: explode" } },
  ]);
  const gob = r20.getObj("graphic", "-OTokGob1");
  assert.deepEqual([gob.get("left"), gob.get("top")], [595, 385]);
  const kev = r20.getObj("graphic", "-OTokPC01");
  assert.deepEqual([kev.get("left"), kev.get("top")], [157.5, 227.5]); // 35 px cells
  assert.ok(r20.visibleChat().some((m) => m.content === "Goblin 1 triggers Kevin's Ready action."));
  // sent again (the relay lost the answer): acknowledged, not applied twice
  const before = r20.calls.length;
  command(r20, [{ seq: 12, op: "sendChat", data: { message: "again" } }]);
  await tick(5);
  const results = await frames(r20, "results");
  assert.deepEqual(results[1].b, [{ seq: 12, ok: true, duplicate: true }]);
  assert.equal(r20.calls.slice(before).filter((c) => c.message === "again").length, 0);
  assert.equal(r20.state.VTTBridge.applied.w1, 17);
});

test("budget: what is left after a drag is whispered to the mover, unless the GM turns it off", async () => {
  const { r20, gm } = campaign();
  const line = "/w \"Bob\" Kevin: 15 ft left walking (one action), 65 ft running (both actions) this turn.";
  const budget = (seq) => ({ seq, op: "budget", data: { token: "-OTokPC01", speakingAs: "VTTBridge", message: line, left: 65, walk: 15, run: 65, sneak: null } });
  command(r20, [budget(20)]);
  await tick(5);
  const whisper = r20.visibleChat().filter((m) => m.type === "whisper" && m.target === "Bob");
  assert.deepEqual(whisper.map((m) => m.content), ["Kevin: 15 ft left walking (one action), 65 ft running (both actions) this turn."]);
  assert.equal(r20.calls.findLast((c) => c.op === "sendChat").options.noarchive, true);
  r20.type(gm.id, "!vttbridge --set budget off");
  await tick(5);
  assert.equal(r20.state.VTTBridge.settings.budget, false);
  command(r20, [budget(21)]);
  await tick(5);
  const results = (await frames(r20, "results")).flatMap((f) => f.b);
  assert.deepEqual(results.at(-1), { seq: 21, ok: true, skipped: "budget whispers are off" });
  assert.equal(r20.visibleChat().filter((m) => m.type === "whisper" && m.target === "Bob").length, 1);
});

test("Campaign.set merges into the live turn order, keeping foreign rows", async () => {
  const { r20 } = campaign();
  const live = [
    { id: "-OTokGob1", pr: "12", custom: "", _pageid: "-OPage01" },
    { id: "-1", pr: 2, custom: "Round", formula: "+1" },
    { id: "-1", pr: 15, custom: "Collapsing ceiling" },
    { id: "-OTokPC01", pr: 19, custom: "", _pageid: "-OPage01" },
  ];
  r20.campaign.attributes.turnorder = JSON.stringify(live);
  command(r20, [{ seq: 3, op: "Campaign.set", data: { merge: { set: [{ id: "-OTokGob1", pr: 14 }], current: "-OTokPC01", round: 3 } } }]);
  await tick(5);
  assert.deepEqual(r20.order, [
    { id: "-OTokPC01", pr: 19, custom: "", _pageid: "-OPage01" },
    { id: "-OTokGob1", pr: 14, custom: "", _pageid: "-OPage01" },
    { id: "-1", pr: 3, custom: "Round", formula: "+1" },
    { id: "-1", pr: 15, custom: "Collapsing ceiling" },
  ]);
  // a whole turn order (a GM's hand-made command) is set as is
  command(r20, [{ seq: 4, op: "Campaign.set", data: { turnorder: "[]" } }]);
  await tick(5);
  assert.deepEqual(r20.order, []);
});

test("the Mod's merge matches the Python reference on every shared case", () => {
  const { r20 } = campaign();
  const merge = r20.context.VTTBridge.mergeTurnorder;
  for (const c of JSON.parse(readFileSync(CASES, "utf8"))) {
    const got = JSON.parse(JSON.stringify(merge(c.rows, c.patch)));
    assert.deepEqual(got, c.expect, c.name);
  }
});

test("a watched move is put back, held, then completed by the bridge's set", async () => {
  const { r20 } = campaign();
  command(r20, [{ seq: 1, op: "watch", data: { page: "-OPage01", watches: [{ cells: [[9, 5]], token: null, exclude: "-OTokPC01" }] } }]);
  await tick(5);
  r20.drag("-OTokGob1", [595, 315], [665, 385]); // into (9, 5)
  const gob = r20.getObj("graphic", "-OTokGob1");
  assert.deepEqual([gob.get("left"), gob.get("top")], [525, 385]); // back where it was
  const [moved] = await events(r20, "change:graphic");
  assert.equal(moved.payload.held, true);
  assert.equal(moved.payload.obj.left, 665); // the move asked for
  assert.equal(r20.state.VTTBridge.holds["-OTokGob1"].left, 665);
  // the bridge resolved the Ready and lets the move complete
  command(r20, [{ seq: 2, op: "set", data: { type: "graphic", id: "-OTokGob1", attrs: { left: 665, top: 385 }, cell: { x: 9, y: 5 } } }]);
  await tick(5);
  assert.deepEqual([gob.get("left"), gob.get("top"), gob.get("lastmove")], [665, 385, "525,385,595,315"]);
  assert.deepEqual(plain(r20.state.VTTBridge.holds), {});
  // a move that stays out of the watched cells is not held, nor one by the excluded token
  r20.drag("-OTokPC01", [245, 175]);
  r20.drag("-OTokPC01", [665, 385]);
  const [, free, excluded] = await events(r20, "change:graphic");
  assert.equal(free.payload.held, undefined);
  assert.equal(excluded.payload.held, undefined);
  // the rules stopped a held move: the bridge puts it where it started, the hold ends
  r20.drag("-OTokGob1", [735, 385], [665, 385]);
  assert.equal(gob.get("left"), 665);
  command(r20, [{ seq: 3, op: "watch", data: { watches: [{ cells: null, token: "-OTokGob1" }] } }]);
  await tick(5);
  r20.drag("-OTokGob1", [735, 385]);
  assert.equal(gob.get("left"), 665);
  command(r20, [{ seq: 4, op: "set", data: { type: "graphic", id: "-OTokGob1", attrs: { left: 665, top: 385 }, release: "x" } }]);
  await tick(5);
  // stays where it started; its last move is still the one before the stopped one
  assert.deepEqual([gob.get("left"), gob.get("lastmove")], [665, "665,385,735,385"]);
  assert.deepEqual(plain(r20.state.VTTBridge.holds), {});
});

test("a held move goes through when the bridge does not answer in time", async () => {
  const { r20, gm } = campaign();
  r20.type(gm.id, "!vttbridge --set holdTimeout 0.05");
  command(r20, [{ seq: 1, op: "watch", data: { watches: [{ token: "-OTokGob1" }] } }]);
  await tick(5);
  r20.drag("-OTokGob1", [595, 385]);
  const gob = r20.getObj("graphic", "-OTokGob1");
  assert.equal(gob.get("left"), 525);
  await until(() => gob.get("left") === 595, 2000, "the held move to go through");
  await tick(5);
  assert.ok(r20.visibleChat().some((m) => /did not answer in 0.05 s; Goblin 1's move went through/.test(m.content)));
});

test("--set validates, --reset forgets", async () => {
  const { r20, gm } = campaign();
  r20.type(gm.id, "!vttbridge --set bars bar1=vitality,bar2=wounds");
  r20.type(gm.id, "!vttbridge --set chat loud");
  r20.type(gm.id, "!vttbridge --set nonsense 1");
  await tick(5);
  assert.deepEqual(plain(r20.state.VTTBridge.settings.bars), { bar1: "vitality", bar2: "wounds" });
  assert.equal(r20.state.VTTBridge.settings.chat, "commands");
  const text = r20.visibleChat().map((m) => m.content).join("\n");
  assert.match(text, /chat is one of commands, all, none/);
  assert.match(text, /no setting nonsense/);
  command(r20, [{ seq: 9, op: "sendChat", data: { message: "x" } }]);
  await tick(5);
  r20.type(gm.id, "!vttbridge --reset");
  await tick(5);
  assert.deepEqual(plain(r20.state.VTTBridge.applied), {});
});

test("the Mod page's options (one-click install) apply once per save, over --set", async () => {
  const start = (options) => {
    const r20 = new Roll20();
    r20.player("Dana", { gm: true, id: "-OPlayGM" });
    if (options) r20.globalconfig.vttbridge = options;
    return r20;
  };
  // saved on the Mod page: every kind of option (a checkbox left empty is off)
  const saved = { lastsaved: 1767225600, chat: "all", ignore: "loot, rest", hold: "", holdTimeout: "45",
    bars: "bar1=hp,bar2=wounds", statPrefix: "vt_", budget: "on" };
  let r20 = start(saved);
  r20.load(MOD);
  r20.ready();
  const s = r20.state.VTTBridge;
  assert.equal(s.settings.chat, "all");
  assert.ok(s.settings.ignore.includes("loot") && s.settings.ignore.includes("rest") && s.settings.ignore.includes("token-mod"));
  assert.equal(s.settings.hold, false);
  assert.equal(s.settings.holdTimeout, 45);
  assert.deepEqual(plain(s.settings.bars), { bar1: "hp", bar2: "wounds" });
  assert.equal(s.settings.statPrefix, "vt_");
  assert.equal(s.settings.budget, true);
  assert.equal(r20.visibleChat().length, 0, "applied quietly, to the API console");
  assert.ok(r20.logs.some((l) => /holdTimeout = 45/.test(l)));

  // the GM changes one in the game: a restart with the same saved options keeps the change
  r20.type("-OPlayGM", "!vttbridge --set chat commands");
  await tick(5);
  const kept = r20.state;
  r20 = start(saved);
  Object.assign(r20.state, kept);
  r20.load(MOD);
  r20.ready();
  assert.equal(r20.state.VTTBridge.settings.chat, "commands");

  // options saved again on the page win, a bad one is logged and leaves its setting alone
  const again = start({ ...saved, lastsaved: saved.lastsaved + 60, chat: "none", holdTimeout: "soon" });
  Object.assign(again.state, r20.state);
  again.load(MOD);
  again.ready();
  assert.equal(again.state.VTTBridge.settings.chat, "none");
  assert.equal(again.state.VTTBridge.settings.holdTimeout, 45);
  assert.ok(again.logs.some((l) => /holdTimeout must be a positive number/.test(l)));

  // no options (a pasted script, or a page never saved): the defaults
  const plainInstall = start(null);
  plainInstall.load(MOD);
  plainInstall.ready();
  assert.equal(plainInstall.state.VTTBridge.settings.chat, "commands");
  assert.equal(plainInstall.state.VTTBridge.settings.hold, true);
});

test("setStats: a bar mapped to the stat, else the character's own attribute, never a shared one", async () => {
  const { r20, page } = campaign();
  r20.state.VTTBridge.settings.bars = { bar1: "hp", bar2: "wounds", bar3: "stress" };
  const kevStress = r20.create("attribute", { _characterid: "-OCharKev", name: "vttb_stress", current: "0" });
  const gob = r20.create("character", { _id: "-OCharGob", name: "Goblin" });
  const linked = r20.create("attribute", { _characterid: "-OCharKev", name: "wounds", current: "10" });
  r20.getObj("graphic", "-OTokPC01").set({ bar2_link: linked.id });
  for (const id of ["-OTokGobA", "-OTokGobB"]) {
    r20.create("graphic", { _id: id, _subtype: "token", _pageid: page.id, name: id, left: 35, top: 35, layer: "objects", represents: gob.id, bar2_value: "6", bar2_link: "" });
  }
  const before = r20.calls.length;
  command(r20, [
    { seq: 20, op: "setStats", data: { token: "-OTokPC01", character: "-OCharKev", stats: { stress: 3, action_dice: 1, wounds: -1 } } },
    { seq: 21, op: "setStats", data: { token: "-OTokGobA", character: gob.id, stats: { wounds: 2, stress: 4, action_dice: 0 } } },
    { seq: 22, op: "setStats", data: { token: "-OTokGob1", stats: { action_dice: 1 } } },
    { seq: 23, op: "setStats", data: { token: "-ONope", stats: { stress: 1 } } },
  ]);
  await tick(5);
  const [res] = await frames(r20, "results");
  assert.deepEqual(res.b, [
    { seq: 20, ok: true },
    { seq: 21, ok: true, skipped: ["action_dice"] }, // one of two goblins: not the shared sheet
    { seq: 22, ok: true, skipped: ["action_dice"] }, // no character, no bar for it
    { seq: 23, ok: false, error: { code: "unknown_token", message: "no graphic -ONope" } },
  ]);
  assert.equal(kevStress.get("current"), 3, "his bar3 is empty: read from the sheet, written there");
  assert.equal(r20.getObj("graphic", "-OTokPC01").get("bar3_value"), undefined);
  const dice = r20.findObjs({ _type: "attribute", _characterid: "-OCharKev", name: "vttb_action_dice" });
  assert.equal(dice.length, 1, "created");
  assert.equal(dice[0].get("current"), 1);
  assert.equal(linked.get("current"), -1, "a linked bar's attribute");
  assert.equal(r20.getObj("graphic", "-OTokGobA").get("bar2_value"), "2");
  assert.equal(r20.getObj("graphic", "-OTokGobA").get("bar3_value"), "4", "an empty bar: its own place");
  assert.equal(r20.getObj("graphic", "-OTokGobB").get("bar2_value"), "6");
  assert.equal(r20.findObjs({ _type: "attribute", _characterid: gob.id }).length, 0);
  const made = r20.calls.slice(before);
  assert.ok(made.some((c) => c.op === "setWithWorker" && c.id === kevStress.id), "with the sheet's workers");
  assert.ok(made.some((c) => c.op === "createObj" && c.type === "attribute"));
  // our own writes are no event: nothing goes back to the bridge
  assert.equal((await events(r20, "change:graphic")).length, 0);
  assert.equal((await events(r20, "change:attribute")).length, 0);
});

test("set with markers merges into the token's live status markers", async () => {
  const { r20 } = campaign();
  const gob = r20.getObj("graphic", "-OTokGob1");
  gob.set({ statusmarkers: "red,blue@3,broken-shield" });
  command(r20, [
    { seq: 30, op: "set", data: { id: gob.id, markers: { add: ["archery-target", "broken-shield"], remove: [] } } },
    { seq: 31, op: "set", data: { id: gob.id, markers: { add: ["dead"], remove: ["archery-target", "blue"] } } },
  ]);
  await tick(5);
  assert.ok((await frames(r20, "results"))[0].b.every((r) => r.ok));
  assert.equal(gob.get("statusmarkers"), "red,broken-shield,dead");
  assert.equal((await events(r20, "change:graphic")).length, 0);
});

test("a GM's edit of a prefixed attribute goes to the bridge", async () => {
  const { r20 } = campaign();
  const move = r20.findObjs({ _type: "attribute", name: "vttb_move" })[0];
  r20.edit(move.id, { current: "35" });
  const [ev] = await events(r20, "change:attribute");
  assert.deepEqual(plain(ev.payload.obj), { _id: move.id, _characterid: "-OCharKev", name: "move", current: "35" });
  assert.deepEqual(plain(ev.payload.prev), { current: "30" });
});
