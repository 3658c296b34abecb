// The rules' changes reach the sheets, end to end under Node: the module's source with the real
// socket.io-client, against the Foundry stand-in and a running `vttbridge serve` (the pytest
// driver, tests/adapters/foundry/test_module_e2e.py, starts it and sets VTTBRIDGE_URL,
// VTTBRIDGE_WORLD and VTTBRIDGE_KEY; without them this test is skipped).
//
// Kevin (linked to his actor) stands off Vic (an unlinked token: his sheet is his delta). The
// action die Kevin spends goes to his actor's sheet and stays spent across a re-sent scene and
// a sheet edit of another stat. At the next round Vic loses the test of wills, takes stress,
// cracks and is struck: his stress and -1 wound points go to his token's synthetic actor. The
// stand off's conditions come and go as status effects. The GM then sets Kevin's action dice on
// the sheet, and the rules follow.
import { test } from "node:test";
import assert from "node:assert/strict";
import { calls, dialogs, dialogText, installFoundry, notes, postChat } from "./foundry-stub.mjs";
import { text, waitFor } from "./waiting.mjs";

const bridge = {
  url: process.env.VTTBRIDGE_URL,
  world: process.env.VTTBRIDGE_WORLD,
  key: process.env.VTTBRIDGE_KEY,
};

const IDS = {
  gm: "gM0000000000000A",
  player: "kT3rPq8Zx1LmNo2B",
  scene: "sDocks0000000001",
  kevin: "tKevin0000000001",
  vic: "tVic000000000002",
  kevinActor: "aKevin0000000001",
  vicActor: "aVic000000000002",
  combat: "cCombat000000002",
};

function world() {
  const attrs = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { value: v }]));
  const token = (id, name, actorId, x, extra) => ({
    _id: id, name, actorId, x, y: 500, elevation: 0, width: 1, height: 1, hidden: false, flags: {}, ...extra,
  });
  return {
    userId: IDS.gm,
    users: [
      { _id: IDS.gm, name: "Dana", role: 4, active: true },
      { _id: IDS.player, name: "Kevin's player", role: 1, active: true },
    ],
    actors: [
      { _id: IDS.kevinActor, name: "Kevin", type: "character", ownership: { default: 0, [IDS.player]: 3 },
        system: { attributes: { ...attrs({ reflex: 14, initiative: 5, action_dice: 2, bab: 3, wisdom: 12, resolve: 30, stress: 0 }), wounds: { value: 10, max: 10 } } } },
      // a special NPC: every copy of him is an unlinked token with its own wounds and stress
      { _id: IDS.vicActor, name: "Vic", type: "character", ownership: { default: 0 },
        system: { attributes: { ...attrs({ reflex: 1, bab: 1, wisdom: 1, resolve: -10, stress: 0 }), wounds: { value: 10, max: 10 } } } },
    ],
    scenes: [{
      _id: IDS.scene, name: "Docks", active: true, grid: { type: 1, size: 100, distance: 5, units: "ft" },
      tokens: [
        token(IDS.kevin, "Kevin", IDS.kevinActor, 800, { actorLink: true, disposition: 1 }),
        token(IDS.vic, "Vic", IDS.vicActor, 1000, { actorLink: false, disposition: -1, delta: {} }),
      ],
    }],
    combats: [{
      _id: IDS.combat, scene: IDS.scene, active: true, round: 1, turn: 0,
      combatants: [
        { _id: "cKevin0000000001", tokenId: IDS.kevin, actorId: IDS.kevinActor, sceneId: IDS.scene, name: "Kevin", initiative: 22 },
        { _id: "cVic000000000002", tokenId: IDS.vic, actorId: IDS.vicActor, sceneId: IDS.scene, name: "Vic", initiative: 10 },
      ],
    }],
  };
}


const chats = () => calls.filter((c) => c.op === "ChatMessage.create").map((c) => c.data);

test("what the rules spend stays spent and reaches the sheets and tokens", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 60000 }, async () => {
  const foundry = installFoundry(world());
  await import("../src/module.js");
  const { game } = foundry;
  const scene = game.scenes.get(IDS.scene);
  const kevin = game.actors.get(IDS.kevinActor);
  const vic = scene.tokens.get(IDS.vic);
  const say = (userId, content, token) => postChat({ content, speaker: token ? { scene: IDS.scene, token, alias: scene.tokens.get(token).name } : { alias: "Dana" } }, {}, userId);
  let asked = 0;
  const whispered = (to, pattern) => chats().some((d) => d.whisper?.includes(to) && pattern.test(text(d.content)));
  /** `!stats` as the GM: the reply's text. */
  const stats = async (who) => {
    const n = chats().length;
    say(IDS.gm, `!stats ${who}`);
    const reply = await waitFor(`!stats ${who}`, () => chats().slice(n).find((d) => text(d.content).startsWith(`${who}: kind=`)));
    return text(reply.content);
  };
  /** A rules question (v13: a User#query dialog on `to`'s screen): a function that answers it. */
  const question = async (to, pattern) => {
    const dialog = await waitFor(`a question to ${to}`, () => dialogs.slice(asked).find((d) => pattern.test(dialogText(d.content))));
    asked = dialogs.indexOf(dialog) + 1;
    // a player's by User#query; the GM's own on the GM's screen, with no query
    if (to !== IDS.gm) assert.ok(calls.some((c) => c.op === "User.query" && c.userId === to));
    return (option) => dialog.click(option);
  };
  const reconnect = async () => {
    const b = globalThis.vttbridge;
    const recovered = notes.filter((n) => /connection recovered/.test(n.text)).length;
    b.socket.disconnect();
    b.socket.connect();
    await waitFor("the link back", () => notes.filter((n) => /connection recovered/.test(n.text)).length > recovered);
  };

  await foundry.boot({ serverUrl: bridge.url, world: bridge.world, key: bridge.key });
  try {
    await waitFor("the combat adopted", () => chats().some((d) => /Combat adopted from the VTT: round 1, Kevin's turn/.test(text(d.content))));
    say(IDS.gm, "!next");
    await waitFor("Vic's turn", () => game.combats.get(IDS.combat).combatant?.tokenId === IDS.vic);

    // -- Vic attacks; Kevin stands off: one action die, to his actor's sheet ---------------------
    say(IDS.gm, "!attack Kevin", IDS.vic);
    (await question(IDS.player, /Stand off\?/))("stand_off");
    const spend = await waitFor("the spent die written to Kevin's sheet", () => calls.find((c) => c.op === "Actor.update" && c.id === IDS.kevinActor));
    assert.deepEqual(spend.changes, { "system.attributes.action_dice.value": 1 });
    assert.equal(spend.options.vttbridge.bridge, true);
    assert.equal(kevin.system.attributes.action_dice.value, 1, "the sheet shows the spend");
    await waitFor("the stand off on both tokens", () => kevin.statuses.has("vttbridge-standoff") && vic.actor.statuses.has("vttbridge-standoff"));
    assert.deepEqual([...kevin.statuses].sort(), ["vttbridge-standoff", "vttbridge-vulnerable"]);
    assert.ok(globalThis.CONFIG.statusEffects.some((e) => e.id === "vttbridge-vulnerable" && e.img === "icons/svg/downgrade.svg"));

    // -- the scene is sent again, the GM edits another stat: the die stays spent -----------------
    await reconnect();
    assert.match(await stats("Kevin"), /action_dice=1,/);
    await kevin.update({ "system.attributes.reflex.value": 15 });
    const after = await stats("Kevin");
    assert.match(after, /reflex=15,/);
    assert.match(after, /action_dice=1,/);

    // -- round 2: Vic loses the test of wills, cracks and is struck -------------------------------
    say(IDS.gm, "!next");
    (await question(IDS.gm, /Vic cracks!/))("be_attacked");
    await waitFor("Vic's wounds on his token's sheet", () => vic.delta?.system?.attributes?.wounds?.value === -1);
    const stress = vic.delta.system.attributes.stress.value;
    assert.ok(stress >= 2, `stress ${stress} went to his delta`);
    assert.equal(game.actors.get(IDS.vicActor).system.attributes.wounds.value, 10, "not to every Vic");
    const vicWrites = calls.filter((c) => c.op === "Actor.update" && c.uuid === `Scene.${IDS.scene}.Token.${IDS.vic}.Actor.${IDS.vicActor}`);
    assert.ok(vicWrites.length >= 2, JSON.stringify(vicWrites));
    await waitFor("the stand off's statuses gone, Vic dying", () => !kevin.statuses.size && vic.actor.statuses.has("vttbridge-dying"));
    assert.deepEqual([...vic.actor.statuses], ["vttbridge-dying"]);
    await reconnect();
    const vicNow = await stats("Vic");
    assert.match(vicNow, /wounds=-1,/);
    assert.match(vicNow, new RegExp(`stress=${stress}`));

    // -- the GM sets Kevin's action dice on the sheet: the rules follow, and say so ---------------
    await kevin.update({ "system.attributes.action_dice.value": 3 });
    await waitFor("the GM told", () => whispered(IDS.gm, /Kevin's action dice set to 3 on the sheet; the rules follow\./));
    assert.match(await stats("Kevin"), /action_dice=3,/);
    assert.equal(calls.filter((c) => c.op === "Actor.update" && c.id === IDS.kevinActor && !c.options?.vttbridge).length, 2, "only the GM's own two edits were not ours");
  } finally {
    globalThis.vttbridge?.stop();
  }
});
