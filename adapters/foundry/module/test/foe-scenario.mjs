// A Fallout: Equestria fight on Foundry v13, end to end: the module's own code against the
// Foundry stand-in, talking to a real `vttbridge serve` (a world created with --system foe).
// Shared by the Node test (src/module.js) and the Chromium page (the built dist/vttbridge.js).
//
// Mint (move 25, her player's token) and a Raider come from the tracker, Mint first. The bridge
// writes Mint's budget on her token; her player's drags reach the GM's client as Foundry v13
// movements (one update per leg, moveToken with the passed waypoints and their actions):
//   - the Token Ruler colours a planned drag by that budget: walk (one action), run (3x), red
//     beyond; after a drag along waypoints, by what is left (the rules measured the path, not
//     the straight line); after !sneak, at sneak speed;
//   - a drag past the sneak movement is refused and put back; at the Raider's turn her ruler is
//     all red (not her turn);
//   - next round, a jump waypoint too long for her is refused by the jump rule, a short one is
//     not.

import { calls, installFoundry, notes, planDrag, postChat } from "./foundry-stub.mjs";
import { check, text, waitFor } from "./waiting.mjs";

export const IDS = {
  gm: "gM0000000000000A",
  player: "pMint00000000001",
  scene: "sRuins0000000001",
  mint: "tMint00000000001",
  raider: "tRaider000000002",
  combat: "cRuins0000000001",
};

export function world() {
  const attrs = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { value: v }]));
  const token = (id, name, actorId, x, y, disposition) => ({
    _id: id, name, actorId, actorLink: true, x, y, elevation: 0, width: 1, height: 1, disposition, hidden: false, flags: {},
  });
  return {
    generation: 13,
    system: { id: "worldbuilding", version: "0.8.2" },
    userId: IDS.gm,
    users: [
      { _id: IDS.gm, name: "Dana", role: 4, active: true, color: 0x0000ff },
      { _id: IDS.player, name: "Mint's player", role: 1, active: true, color: 0xff00ff },
    ],
    actors: [
      { _id: "aMint00000000001", name: "Mint", type: "character", ownership: { default: 0, [IDS.player]: 3 },
        system: { attributes: attrs({ move: 25, agility: 8, sneak_skill: 50 }) } },
      { _id: "aRaider000000002", name: "Raider", type: "npc", ownership: { default: 0 },
        system: { attributes: attrs({ move: 30, perception_skill: 30 }) } },
    ],
    scenes: [{
      _id: IDS.scene, name: "Ruins", active: true,
      grid: { type: 1, size: 100, distance: 5, units: "ft" },
      tokens: [
        token(IDS.mint, "Mint", "aMint00000000001", 0, 0, 1),
        token(IDS.raider, "Raider", "aRaider000000002", 1500, 1000, -1),
      ],
    }],
    combats: [{
      _id: IDS.combat, scene: IDS.scene, active: true, round: 1, turn: 0,
      combatants: [
        { _id: "cMint00000000001", tokenId: IDS.mint, actorId: "aMint00000000001", sceneId: IDS.scene, name: "Mint", initiative: 90 },
        { _id: "cRaider000000002", tokenId: IDS.raider, actorId: "aRaider000000002", sceneId: IDS.scene, name: "Raider", initiative: 10 },
      ],
    }],
  };
}



const chats = () => calls.filter((c) => c.op === "ChatMessage.create").map((c) => c.data);

export async function playFoeRuler({ load, bridge, log = () => {} }) {
  const foundry = installFoundry(world());
  const mod = await load();
  const { RULER_COLORS, budgetTier, plannedLength } = mod;
  const scene = foundry.game.scenes.get(IDS.scene);
  const combat = foundry.game.combats.get(IDS.combat);
  const mint = scene.tokens.get(IDS.mint);
  const say = (content) =>
    postChat({ content, speaker: { scene: IDS.scene, token: IDS.mint, actor: mint.actorId, alias: "Mint" } }, {}, IDS.player);
  // Mint's player drags her: a v13 movement made on the player's client, as the GM's receives it
  const drag = (points) =>
    mint.move(points.map(([x, y, action]) => ({ x, y, ...(action ? { action } : {}), explicit: true, checkpoint: true })), { method: "dragging", stubUser: IDS.player });
  const budget = () => mint.flags?.vttbridge?.budget ?? null;
  const budgetIs = (what, pred) => waitFor(`Mint's budget: ${what}`, () => budget() && pred(budget()) && budget());
  const colorOf = (tier) => RULER_COLORS[tier];
  /** What the ruler shows for a drag east along `cells` cells, checked against the budget. */
  const ruler = (cells, want) => {
    const points = Array.from({ length: cells }, (_, i) => ({ x: mint.x + (i + 1) * 100, y: mint.y }));
    const drawn = planDrag(mint, points, { userId: IDS.player });
    const got = drawn.segments.map((s) => Object.keys(RULER_COLORS).find((k) => RULER_COLORS[k] === s.style.color) ?? "plain");
    check(JSON.stringify(got) === JSON.stringify(want), `ruler ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
    // each colour is the bridge's budget for the rules' length of the path there
    const b = budget();
    drawn.segments.forEach((s, i) => check(s.style.color === colorOf(budgetTier(b, 5 * (i + 1))), `segment ${i} vs budget`));
    return got;
  };

  // -- link: the tracker's combat is adopted, Mint's budget arrives on her token ----------------
  await foundry.boot({ serverUrl: bridge.url, world: bridge.world, key: bridge.key });
  await waitFor("the link", () => notes.find((n) => /linked to/.test(n.text)));
  await waitFor("the combat adopted", () => chats().some((d) => /Combat adopted from the VTT: round 1, Mint's turn/.test(text(d.content))));
  const b0 = await budgetIs("a fresh turn", (b) => b.walk === 25 && b.run === 75 && b.turn === true);
  check(b0.metric === "alternating" && b0.distance === 5, "the rules' measure comes with it");
  ruler(16, [...Array(5).fill("walk"), ...Array(10).fill("run"), "over"]);
  log("Mint's turn: walk 25, run 75 on her ruler");

  // -- a drag along waypoints: east 15 ft, then south 10 ft (an L, not the 20 ft diagonal) ------
  await drag([[300, 0], [300, 200]]);
  await waitFor("the drag's end", () => mint.x === 300 && mint.y === 200 && mint.movement.state === "completed");
  const b1 = await budgetIs("after the L", (b) => b.moved === 25);
  check(b1.walk === 0 && b1.run === 50 && b1.left === 50, `after 25 ft: ${JSON.stringify(b1)}`);
  const leg = calls.filter((c) => c.op === "Token.update" && c.id === IDS.mint && c.options?.vttbridge).length;
  check(leg > 0, "the bridge's flags reached the token");
  ruler(11, [...Array(10).fill("run"), "over"]);
  log("an L-shaped drag: 25 ft on its path; the ruler shows 50 ft of run left");

  // -- sneaking: sneak speed, and a drag past it refused -----------------------------------------
  say("!sneak");
  const b2 = await budgetIs("sneaking", (b) => b.sneak !== null);
  check(b2.sneak === 10 && b2.walk === null && b2.run === null, `sneaking: ${JSON.stringify(b2)}`);
  ruler(3, ["sneak", "sneak", "over"]);
  await drag([[700, 200]]); // 20 ft at sneak speed 10: refused, put back
  await waitFor("the refusal", () => chats().some((d) => /Move refused: Mint is sneaking and can move 10 ft more at sneak speed; that path is 20 ft/.test(text(d.content))));
  await waitFor("Mint put back", () => mint.x === 300 && mint.y === 200);
  check(budget().sneak === 10, "a refused move spends nothing");
  log("sneaking: 10 ft at sneak speed; a 20 ft drag refused and put back");

  // -- the Raider's turn: Mint may not move now ---------------------------------------------------
  postChat({ content: "!next", speaker: { alias: "Dana" } }, {}, IDS.gm);
  await waitFor("the Raider's turn", () => combat.combatant?.tokenId === IDS.raider);
  await budgetIs("not her turn", (b) => b.turn === false);
  ruler(2, ["over", "over"]);
  const raider = scene.tokens.get(IDS.raider);
  await waitFor("the Raider's budget", () => raider.flags?.vttbridge?.budget?.turn === true);
  log("the Raider's turn: Mint's ruler is all red");

  // -- round 2: a jump waypoint, judged by the jump rule ------------------------------------------
  postChat({ content: "!next", speaker: { alias: "Dana" } }, {}, IDS.gm);
  await waitFor("round 2, Mint's turn", () => combat.round === 2 && combat.combatant?.tokenId === IDS.mint);
  await budgetIs("a new turn", (b) => b.turn && b.moved === 0 && b.run === 75);
  await drag([[600, 200, "jump"]]); // a 15 ft standing jump: she jumps 12.5 ft
  await waitFor("the jump refused", () => chats().some((d) => /Move refused: Mint can jump 12\.5 ft; that jump is 15 ft\./.test(text(d.content))));
  await waitFor("Mint put back", () => mint.x === 300 && mint.y === 200);
  await drag([[500, 200, "jump"]]); // 10 ft: cleared
  await waitFor("the jump", () => mint.x === 500);
  await budgetIs("after the jump", (b) => b.moved === 10);
  check(plannedLength(mint, { x: 600, y: 200, stage: "planned", previous: null }, budget()) === 5, "lengths from where she stands");
  log("round 2: a 15 ft jump refused (12.5 ft at most), a 10 ft one made");

  const transcript = chats().map((d) => `${d.whisper?.length ? "(whisper) " : ""}${text(d.content)}`);
  globalThis.vttbridge.stop();
  return { transcript };
}
