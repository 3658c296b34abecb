// Kevin's corner Ready and a Stand Off, played end to end: the module's own code against the
// Foundry stand-in, talking to a real `vttbridge serve`. Shared by the Node tests (which import
// src/module.js) and the Chromium page (which imports the built dist/vttbridge.js). Played on
// Foundry v12 (a drag is an update of x/y, a watched one is held by preUpdateToken) and on v13
// (a drag is a TokenDocument#move; a watched one is paused in the cell before the corner, and
// resumed once the Ready resolves).
//
// Cast (Spycraft 2.0, rules.md "Ready" rule 3): Kevin (IC 22, Reflex +14) readies a shot at
// whoever rounds the corner, on the attempt. His ally Gary comes round at IC 14: the move is
// held, Kevin holds back (Reflex save), his IC drops to 14, Gary's move completes, nobody is
// shot. Next round Kevin readies again; the Thug (IC 10) comes round: held, Kevin fires before
// the Thug completes the move. Then the Thug attacks Kevin, Kevin stands off, and damage
// entered on the Thug's sheet ends the stand off.

import { calls, dialogs, dialogText, installFoundry, notes, postChat, Hooks } from "./foundry-stub.mjs";
import { check, text, waitFor } from "./waiting.mjs";

export const IDS = {
  gm: "gM0000000000000A",
  kevinPlayer: "kT3rPq8Zx1LmNo2B",
  scene: "sWarehouse000001",
  kevin: "tKevin0000000001",
  gary: "tGary00000000002",
  thug: "tThug00000000003",
  combat: "cCombat000000001",
};

export const GROUND = "lvlGround0000001";

export function world(generation = 13) {
  // v14: everyone on the ground floor, where the corner is drawn
  const level = generation >= 14 ? { level: GROUND } : {};
  const token = (id, name, actorId, x, y, extra = {}) => ({
    _id: id, name, actorId, actorLink: true, x, y, elevation: 0, width: 1, height: 1,
    disposition: 1, hidden: false, flags: {}, ...level, ...extra,
  });
  const attrs = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { value: v }]));
  return {
    generation,
    userId: IDS.gm,
    users: [
      { _id: IDS.gm, name: "Dana", role: 4, active: true },
      { _id: IDS.kevinPlayer, name: "Kevin's player", role: 1, active: true },
    ],
    actors: [
      { _id: "aKevin0000000001", name: "Kevin", type: "character", ownership: { default: 0, [IDS.kevinPlayer]: 3 },
        system: { attributes: attrs({ reflex: 14, initiative: 5, action_dice: 2, bab: 3, wisdom: 12 }) } },
      { _id: "aGary00000000002", name: "Gary", type: "character", ownership: { default: 0 },
        system: { attributes: attrs({ reflex: 2, initiative: 0 }) } },
      { _id: "aThug00000000003", name: "Thug", type: "npc", ownership: { default: 0 },
        system: { attributes: { ...attrs({ bab: 1, reflex: 1 }), wounds: { value: 10, max: 10 } } } },
    ],
    scenes: [{
      _id: IDS.scene, name: "Warehouse", active: true,
      grid: { type: 1, size: 100, distance: 5, units: "ft" },
      tokens: [
        token(IDS.kevin, "Kevin", "aKevin0000000001", 800, 500),
        token(IDS.gary, "Gary", "aGary00000000002", 1300, 500),
        token(IDS.thug, "Thug", "aThug00000000003", 1300, 800, { actorLink: false, disposition: -1, delta: {} }),
      ],
      // a v12+ Region: cells 10-11 x 4-6
      regions: [{ _id: "rCorner000000001", name: "corner", shapes: [{ type: "rectangle", x: 1000, y: 400, width: 200, height: 300, rotation: 0, hole: false }], ...(generation >= 14 ? { levels: [GROUND] } : {}) }],
    }],
    combats: [{
      _id: IDS.combat, scene: IDS.scene, active: true, round: 1, turn: 0,
      combatants: [
        { _id: "cKevin0000000001", tokenId: IDS.kevin, actorId: "aKevin0000000001", sceneId: IDS.scene, name: "Kevin", initiative: 22 },
        { _id: "cGary00000000002", tokenId: IDS.gary, actorId: "aGary00000000002", sceneId: IDS.scene, name: "Gary", initiative: 14 },
        { _id: "cThug00000000003", tokenId: IDS.thug, actorId: "aThug00000000003", sceneId: IDS.scene, name: "Thug", initiative: 10 },
      ],
    }],
  };
}



const chats = () => calls.filter((c) => c.op === "ChatMessage.create").map((c) => c.data);
const chatIndex = (pattern) => calls.findIndex((c) => c.op === "ChatMessage.create" && pattern.test(text(c.data.content)));

/**
 * Play the encounter. `load()` imports the module under test (after the stand-in is
 * installed); `bridge` = {url, world, key}. Returns the chat log as the GM saw it.
 */
export async function playCorner({ load, bridge, log = () => {}, generation = 13 }) {
  const foundry = installFoundry(world(generation));
  await load();
  const v13 = generation >= 13;
  const scene = foundry.game.scenes.get(IDS.scene);
  const combat = foundry.game.combats.get(IDS.combat);
  const tok = (id) => scene.tokens.get(id);
  // a player's drag: v13 moves through TokenDocument#move; v12 updates x and y
  const drag = (id, x, y) =>
    v13 ? tok(id).move([{ x, y, explicit: true, checkpoint: true }], { method: "dragging" }) : tok(id).update({ x, y });
  // v12 holds a watched move where it started; v13 pauses it in the cell before the corner;
  // v14 in the first cell of the corner's hold region (or, when the move stops there, before)
  const heldAt = (id, v12x, v13x, v14x = v13x) => waitFor(`${id} held`, () => {
    const t = tok(id);
    return v13 ? t.movement.state === "paused" && t.x === (generation >= 14 ? v14x : v13x) : t.x === v12x;
  });
  // the release of a held move: v12 applies the held update, v13 resumes the movement
  const released = (id) =>
    calls.findIndex((c) => (v13 ? c.op === "Token.resumeMovement" : c.op === "Token.update" && c.options?.vttbridge?.hold) && c.id === id);
  const say = (userId, content, token) =>
    postChat({ content, speaker: token ? { scene: IDS.scene, token, actor: tok(token).actorId, alias: tok(token).name } : { alias: "Dana" } }, {}, userId);
  // a rules question: v13+ a User#query dialog on the player's screen; v12 a whisper with buttons
  const promptFor = async (player, pattern) => {
    if (v13) {
      const dialog = await waitFor(`a dialog for ${player}`, () =>
        dialogs.find((d) => !d.closed && !d.seen && pattern.test(dialogText(d.content)) && (d.seen = true)));
      check(calls.some((c) => c.op === "User.query" && c.userId === player), `the question is a query to ${player}`);
      return { answer: (option) => dialog.click(option) };
    }
    const msg = await waitFor(`a question to ${player}`, () =>
      chats().find((d) => d.flags?.vttbridge?.prompt && d.whisper?.includes(player) && pattern.test(text(d.content)) && !d.seen && (d.seen = true)));
    const prompt = msg.flags.vttbridge.prompt;
    return { answer: (option) => say(player, `!answer ${prompt} ${option}`, player === IDS.kevinPlayer ? IDS.kevin : undefined) };
  };

  // -- link: the ready hook connects, the snapshot adopts the tracker's combat ------------------
  await foundry.boot({ serverUrl: bridge.url, world: bridge.world, key: bridge.key });
  await waitFor("the link notification", () => notes.find((n) => /linked to/.test(n.text)));
  await waitFor("the combat adopted", () => chatIndex(/Combat adopted from the VTT: round 1, Kevin's turn/) >= 0);
  log("linked; combat adopted");

  // -- round 1: Kevin readies on the attempt ---------------------------------------------------
  say(IDS.kevinPlayer, "!ready shoot --when corner --timing attempt", IDS.kevin);
  const watchOn = await waitFor("the watch flag", () => scene.getFlag("vttbridge", "watch")?.watches?.length && scene.getFlag("vttbridge", "watch"));
  check(watchOn.watches[0].exclude === IDS.kevin, "Kevin's own moves are not watched");
  check(watchOn.watches[0].cells.length === 6, "the corner's 6 cells are watched");
  await waitFor("Gary's turn", () => combat.turn === combat.turns.findIndex((c) => c.tokenId === IDS.gary));
  log("Kevin readies; Gary's turn");

  // an unwatched move goes through at once (no round trip): Thug steps 13,8 -> 14,8
  await drag(IDS.thug, 1400, 800);
  check(tok(IDS.thug).x === 1400, "an unwatched move is not held");

  // -- Gary (ally) rounds the corner at IC 14: held until Kevin decides ------------------------
  await drag(IDS.gary, 1000, 500);
  await heldAt(IDS.gary, 1300, 1200, 1100); // v13: paused at 12,5, the cell before the corner; v14: at 11,5, in it
  const p1 = await promptFor(IDS.kevinPlayer, /Ready is triggered/);
  await waitFor("Kevin's IC 14", () => combat.combatants.get("cKevin0000000001").initiative === 14);
  check(tok(IDS.gary).x === (generation >= 14 ? 1100 : v13 ? 1200 : 1300), "still held while Kevin decides");
  if (v13) check(calls.some((c) => c.op === "Token.pauseMovement" && c.id === IDS.gary), "v13 pauses the movement");
  if (generation >= 14) {
    const made = calls.find((c) => c.op === "Region.create");
    check(made?.data[0].behaviors[0].type === "vttbridge.hold" && made.data[0].levels?.[0] === GROUND, "v14 holds through a hold region on the corner's level");
  }
  p1.answer("cancel");
  await waitFor("Gary's move completed", () => tok(IDS.gary).x === 1000);
  const heldBack = chatIndex(/Kevin holds back \(Reflex \d+ vs DC 15\): no shoot/);
  check(heldBack >= 0, "Kevin holds back after his Reflex save");
  check(chatIndex(/takes his readied action/) < 0 && chatIndex(/fails his Reflex save/) < 0, "nobody is shot");
  const garyRelease = released(IDS.gary);
  check(garyRelease > heldBack, "the Ready resolved before the move completed");
  if (v13) check(!calls.some((c) => c.op === "Token.update" && c.id === IDS.gary && c.cancelled), "v13: paused, never cancelled");
  await waitFor("the watch cleared", () => scene.getFlag("vttbridge", "watch")?.watches?.length === 0);
  log("Gary rounds the corner; Kevin holds back; Gary's move completes");

  // -- to round 2: the tracker's own next-turn button, then !next --------------------------------
  await combat.nextTurn(); // Gary's turn ends in Foundry -> the rules: Thug's turn
  await waitFor("the Thug's turn", () => combat.combatant?.tokenId === IDS.thug);
  say(IDS.gm, "!next");
  await waitFor("round 2, Kevin's turn", () => combat.round === 2 && combat.combatant?.tokenId === IDS.kevin);
  log("round 2: Kevin's turn (IC 14, ahead of Gary on Initiative bonus)");

  // -- Kevin readies again; the Thug (enemy) rounds the corner at IC 10 ------------------------
  say(IDS.kevinPlayer, "!ready shoot --when corner --timing attempt", IDS.kevin);
  await waitFor("the watch flag again", () => scene.getFlag("vttbridge", "watch")?.watches?.length);
  await waitFor("Gary's turn again", () => combat.combatant?.tokenId === IDS.gary);
  say(IDS.gm, "!next");
  await waitFor("the Thug's turn again", () => combat.combatant?.tokenId === IDS.thug);
  await drag(IDS.thug, 1100, 500);
  await heldAt(IDS.thug, 1400, 1200); // v13: paused at 12,6
  check(tok(IDS.thug).x === (v13 ? 1200 : 1400), "the Thug's move is held");
  const p2 = await promptFor(IDS.kevinPlayer, /Ready is triggered/);
  p2.answer("fire");
  await waitFor("the Thug's move completed", () => tok(IDS.thug).x === 1100);
  const shot = chatIndex(/Kevin takes his readied action: shoot \(before the task/);
  check(shot >= 0, "Kevin shoots the Thug");
  const thugRelease = released(IDS.thug);
  check(thugRelease > shot, "the shot comes before the Thug completes his move");
  await waitFor("Kevin's IC 10", () => combat.combatants.get("cKevin0000000001").initiative === 10);
  log("the Thug rounds the corner; Kevin shoots first; the move completes");

  // -- Stand Off: the Thug attacks Kevin, Kevin stands off, damage ends it -----------------------
  say(IDS.gm, "!attack Kevin", IDS.thug);
  const p3 = await promptFor(IDS.kevinPlayer, /Stand off\?/);
  p3.answer("stand_off");
  await waitFor("the stand off", () => chatIndex(/stand off/i) >= 0 && chats().some((d) => /vulnerable|stand off .*begins|stands off/i.test(text(d.content))));
  // the GM enters 3 wounds on the Thug's sheet (an unlinked token: its delta, and its synthetic actor)
  await tok(IDS.thug).update({ delta: { system: { attributes: { wounds: { value: 7 } } } } });
  Hooks.callAll("updateActor", { id: "aThug00000000003", name: "Thug", type: "npc", uuid: `Scene.${IDS.scene}.Token.${IDS.thug}.Actor.aThug00000000003` },
    { _id: "aThug00000000003", system: { attributes: { wounds: { value: 7 } } } }, { diff: true }, IDS.gm);
  await waitFor("the stand off's end", () => chatIndex(/Stand off \S+ ends: everyone re-enters combat/) >= 0);
  log("the Thug attacks; Kevin stands off; damage on the sheet ends it");

  // -- connection loss and recovery: nothing is applied twice ----------------------------------
  const applied = calls.length;
  const b = globalThis.vttbridge;
  const seq = b.lastSeq;
  check(seq > 0 && Number(globalThis.localStorage.getItem(b.seqKey)) === seq, "the last applied seq is kept");
  b.socket.disconnect();
  await waitFor("the loss notification", () => notes.find((n) => /connection lost/.test(n.text)));
  b.socket.connect();
  await waitFor("the recovery notification", () => notes.find((n) => /connection recovered/.test(n.text)));
  await new Promise((r) => setTimeout(r, 300));
  check(calls.slice(applied).every((c) => c.op !== "Token.update"), "no command re-applied after reconnecting");
  log("connection lost and recovered");

  const transcript = chats().map((d) => `${d.whisper?.length ? "(whisper) " : ""}${text(d.content)}`);
  b.stop();
  return { transcript, calls: calls.map((c) => c.op) };
}
