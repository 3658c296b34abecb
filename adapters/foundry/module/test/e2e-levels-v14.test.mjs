// Foundry v14 end to end under Node: the module's source with the real socket.io-client, the
// Foundry stand-in as v14 and a running `vttbridge serve` (VTTBRIDGE_URL, VTTBRIDGE_WORLD,
// VTTBRIDGE_KEY, set by tests/adapters/foundry/test_module_e2e.py; skipped without them).
//
// A warehouse with two floors; the corner (cells 10-11 x 4-6) is drawn on the ground floor.
// Kevin readies a shot at whoever rounds the corner, on the attempt: his "Readied" condition
// arrives as an Active Effect with the rules' duration (until his next turn), and the corner
// becomes a hold region on the ground floor. Gary crosses the corner's x/y upstairs: nothing
// happens. The Thug rounds it on the ground floor: his movement is paused where it enters the
// region (the module's Region behavior), Kevin's player is asked through a User#query dialog,
// lets it time out, and the prompt's default (fire) applies; the movement resumes. The Ready
// is over: the module ends its effect, once. Kevin readies again, nothing rounds the corner,
// and at his turn a round later Foundry expires the effect: the module, told by the rules that
// the Ready is over, leaves it alone.
import { test } from "node:test";
import { calls, dialogs, dialogText, installFoundry, notes, postChat } from "./foundry-stub.mjs";
import { check, text, waitFor } from "./waiting.mjs";

const bridge = { url: process.env.VTTBRIDGE_URL, world: process.env.VTTBRIDGE_WORLD, key: process.env.VTTBRIDGE_KEY };

const GROUND = "lvlGround0000001";
const UPSTAIRS = "lvlUpstairs00002";
const IDS = {
  gm: "gM0000000000000A",
  player: "kT3rPq8Zx1LmNo2B",
  scene: "sWarehouse000001",
  kevin: "tKevin0000000001",
  gary: "tGary00000000002",
  thug: "tThug00000000003",
  combat: "cCombat000000001",
};

function world() {
  const token = (id, name, actorId, x, y, level, extra = {}) => ({
    _id: id, name, actorId, actorLink: true, x, y, elevation: level === GROUND ? 0 : 10, width: 1, height: 1,
    disposition: 1, hidden: false, flags: {}, level, ...extra,
  });
  const attrs = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { value: v }]));
  return {
    generation: 14,
    userId: IDS.gm,
    users: [
      { _id: IDS.gm, name: "Dana", role: 4, active: true },
      { _id: IDS.player, name: "Kevin's player", role: 1, active: true },
    ],
    actors: [
      { _id: "aKevin0000000001", name: "Kevin", type: "character", ownership: { default: 0, [IDS.player]: 3 },
        system: { attributes: attrs({ reflex: 14, initiative: 5, action_dice: 2, bab: 3 }) } },
      { _id: "aGary00000000002", name: "Gary", type: "character", ownership: { default: 0 }, system: { attributes: attrs({ reflex: 2 }) } },
      { _id: "aThug00000000003", name: "Thug", type: "npc", ownership: { default: 0 }, system: { attributes: attrs({ bab: 1, reflex: 1 }) } },
    ],
    scenes: [{
      _id: IDS.scene, name: "Warehouse", active: true, grid: { type: 1, size: 100, distance: 5, units: "ft" },
      tokens: [
        token(IDS.kevin, "Kevin", "aKevin0000000001", 800, 500, GROUND),
        token(IDS.gary, "Gary", "aGary00000000002", 1300, 500, UPSTAIRS),
        token(IDS.thug, "Thug", "aThug00000000003", 1300, 600, GROUND, { disposition: -1 }),
      ],
      regions: [{ _id: "rCorner000000001", name: "corner", levels: [GROUND],
        shapes: [{ type: "rectangle", x: 1000, y: 400, width: 200, height: 300, rotation: 0, hole: false }] }],
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



const chats = () => calls.filter((c) => c.op === "ChatMessage.create").map((c) => text(c.data.content));
const said = (pattern) => chats().some((t) => pattern.test(t));

test("Foundry v14: levels, a hold region, a timed-out query and a Ready's Active Effect", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 90000 }, async () => {
  const foundry = installFoundry(world());
  await import("../src/module.js");
  const { game } = foundry;
  const scene = game.scenes.get(IDS.scene);
  const combat = game.combats.get(IDS.combat);
  const tok = (id) => scene.tokens.get(id);
  const kevin = game.actors.get("aKevin0000000001");
  const say = (userId, content, token) =>
    postChat({ content, speaker: token ? { scene: IDS.scene, token, actor: tok(token).actorId, alias: tok(token).name } : { alias: "Dana" } }, {}, userId);
  const drag = (id, x, y, level) => tok(id).move([{ x, y, level, explicit: true, checkpoint: true }], { method: "dragging" });
  const readied = () => kevin.effects.contents.filter((e) => e.statuses.has("vttbridge-readied"));
  /** GM's !next until it is `token`'s turn in `round`. */
  const turnOf = async (token, round) => {
    for (let i = 0; i < 8 && !(combat.round === round && combat.combatant?.tokenId === token); i++) {
      const at = `${combat.round}/${combat.turn}`;
      say(IDS.gm, "!next");
      await waitFor("the next turn", () => `${combat.round}/${combat.turn}` !== at);
    }
    check(combat.round === round && combat.combatant?.tokenId === token, `${token}'s turn in round ${round}`);
  };

  await foundry.boot({ serverUrl: bridge.url, world: bridge.world, key: bridge.key });
  await waitFor("the link", () => notes.find((n) => /linked to/.test(n.text)));
  await waitFor("the combat adopted", () => said(/Combat adopted from the VTT: round 1, Kevin's turn/));
  say(IDS.gm, "!set prompt_timeout 2");
  await waitFor("the short prompt timeout", () => said(/prompt_timeout/));

  // -- Kevin readies on the attempt: an Active Effect with the rules' duration; a hold region ----
  say(IDS.player, "!ready shoot --when corner --timing attempt", IDS.kevin);
  const effect = await waitFor("Kevin's Readied effect", () => readied()[0]);
  check(JSON.stringify(effect.duration) === JSON.stringify({ value: 1, units: "rounds", expiry: "turnStart", expired: false }), `duration ${JSON.stringify(effect.duration)}`);
  const region = await waitFor("the hold region", () => scene.regions.find((r) => r.getFlag("vttbridge", "hold")));
  check(JSON.stringify(region.levels) === JSON.stringify([GROUND]), "the hold region is on the ground floor");
  check(region.behaviors.contents[0].type === "vttbridge.hold", "with the module's behavior type");
  await waitFor("Gary's turn", () => combat.combatant?.tokenId === IDS.gary);

  // -- Gary crosses the corner's x/y upstairs: not held, nothing set off -------------------------
  await drag(IDS.gary, 900, 500, UPSTAIRS);
  await waitFor("Gary's move done", () => tok(IDS.gary).x === 900 && tok(IDS.gary).movement.state === "completed");
  await new Promise((r) => setTimeout(r, 300));
  check(!calls.some((c) => c.op === "Token.pauseMovement"), "no pause upstairs");
  check(!dialogs.length && !said(/Ready is triggered/), "Gary on another floor sets nothing off");

  // -- the Thug rounds the corner on the ground floor: paused in the region, Kevin asked ---------
  await turnOf(IDS.thug, 1);
  await drag(IDS.thug, 900, 600, GROUND);
  await waitFor("the Thug paused in the corner", () => tok(IDS.thug).movement.state === "paused" && tok(IDS.thug).x === 1100);
  const dialog = await waitFor("Kevin's player's dialog", () => dialogs.find((d) => /Ready is triggered/.test(dialogText(d.content))));
  check(calls.some((c) => c.op === "User.query" && c.userId === IDS.player && c.timeout === 4000), "a User#query to Kevin's player, timing out with the prompt");
  check(/"fire" applies in 2 s/.test(dialogText(dialog.content)), "the dialog says what applies if nobody answers");
  // nobody answers: the dialog closes and the prompt's default (fire) applies
  await waitFor("the dialog closed", () => dialog.closed, 6000);
  await waitFor("the default answer: Kevin fires", () => said(/Kevin takes his readied action: shoot \(before the task/), 8000);
  await waitFor("the Thug's move completed", () => tok(IDS.thug).x === 900 && tok(IDS.thug).movement.state === "completed");
  check(calls.some((c) => c.op === "Token.resumeMovement" && c.id === IDS.thug), "resumed through resumeMovement");
  // the Ready is over: the module ends its effect, once
  await waitFor("the Readied effect gone", () => !readied().length);
  const ends = (id) => calls.filter((c) => (c.op === "ActiveEffect.delete" && c.id === id) || (c.op === "ActiveEffect.update" && c.id === id));
  check(ends(effect.id).length === 1 && ends(effect.id)[0].op === "ActiveEffect.delete", `ended once: ${JSON.stringify(ends(effect.id))}`);

  // -- round 2: Kevin readies again; nothing comes; a round later Foundry expires the effect ------
  await turnOf(IDS.kevin, 2);
  say(IDS.player, "!ready shoot --when corner --timing attempt", IDS.kevin);
  const second = await waitFor("the second Readied effect", () => readied().find((e) => e.id !== effect.id));
  await turnOf(IDS.kevin, 3);
  await waitFor("Foundry expired it", () => second.duration.expired === true);
  await waitFor("the rules end the Ready", () => said(/Kevin's Ready expires/));
  await new Promise((r) => setTimeout(r, 300));
  const secondEnds = ends(second.id);
  check(secondEnds.length === 1 && secondEnds[0].op === "ActiveEffect.update", `expired by Foundry, ended once: ${JSON.stringify(secondEnds)}`);
  globalThis.vttbridge.stop();
});
