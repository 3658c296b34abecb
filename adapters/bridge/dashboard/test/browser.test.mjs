// The dashboard end to end in headless Chromium (or Firefox): the committed bundle, served by a real
// `vttbridge serve`, watching encounters that a Foundry-shaped VTT client (the real
// socket.io-client, sending the companion module's payloads) plays on the same server.
// Driven by tests/bridge/test_dashboard_browser.py, which starts the server, makes the worlds
// and passes them in the environment; skipped without them. Screenshots of each state go to
// $DASHBOARD_SHOTS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { io } from "socket.io-client";
import { launch } from "./drivers.mjs";

const env = process.env;
// Chromium (Debian's), or Firefox (Debian's firefox-esr, driven over WebDriver BiDi)
const browserName = env.DASHBOARD_BROWSER || "chromium";
const executable =
  browserName === "firefox" ? env.FIREFOX_PATH || "/usr/bin/firefox-esr" : env.CHROMIUM_PATH || "/usr/bin/chromium";
const url = env.VTTBRIDGE_URL;
const shots = env.DASHBOARD_SHOTS;
const skip = !url ? "no bridge (run through pytest)" : !existsSync(executable) ? `no ${browserName} at ${executable}` : false;

const GM = "gM0000000000000A";
const PLAYER = "kT3rPq8Zx1LmNo2B";
const KEVIN = "tKevin0000000001";
const GARY = "tGary00000000002";
const THUG = "tThug00000000003";
const PINKIE = "tPinkie000000001";
const RAIDER = "tRaider000000002";

const attrs = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { value: v }]));
const token = (id, name, actor, x, y, extra = {}) => ({
  _id: id, name, actorId: actor, actorLink: true, x, y, width: 1, height: 1, disposition: 1, hidden: false, ...extra,
});

function warehouse() {
  return {
    systemId: "worldbuilding",
    scene: { _id: "sWarehouse000001", name: "Warehouse", grid: { size: 100, distance: 5 } },
    tokens: [
      token(KEVIN, "Kevin", "aKevin", 800, 500),
      token(GARY, "Gary", "aGary", 1300, 500),
      token(THUG, "Thug", "aThug", 1300, 800, { actorLink: false, disposition: -1 }),
    ],
    actors: [
      { _id: "aKevin", name: "Kevin", type: "character", ownership: { [PLAYER]: 3 },
        system: { attributes: attrs({ reflex: 14, initiative: 5, action_dice: 2, bab: 3 }) } },
      { _id: "aGary", name: "Gary", type: "character",
        system: { attributes: attrs({ reflex: 30, action_dice: 2, resolve: 30, wisdom: 10 }) } },
      { _id: "aThug", name: "Thug", type: "npc", system: { attributes: attrs({ bab: 1, resolve: 0, wisdom: 10 }) } },
    ],
    users: [
      { _id: GM, name: "Dana", role: 4 },
      { _id: PLAYER, name: "Kevin's player", role: 1 },
    ],
    regions: [{ _id: "rCorner", name: "corner", shapes: [{ type: "rectangle", x: 1000, y: 400, width: 200, height: 300 }] }],
    combat: {
      _id: "cCombat", scene: "sWarehouse000001", round: 1, turn: 0,
      combatants: [
        { _id: "cK", tokenId: KEVIN, name: "Kevin", initiative: 22 },
        { _id: "cG", tokenId: GARY, name: "Gary", initiative: 14 },
        { _id: "cT", tokenId: THUG, name: "Thug", initiative: 10 },
      ],
    },
  };
}

function wasteland() {
  return {
    systemId: "worldbuilding",
    scene: { _id: "sWasteland000001", name: "Wasteland", grid: { size: 100, distance: 5 } },
    tokens: [token(PINKIE, "Pinkie", "aPinkie", 500, 500), token(RAIDER, "Raider", "aRaider", 1200, 700, { disposition: -1 })],
    actors: [
      { _id: "aPinkie", name: "Pinkie", type: "character", system: { attributes: attrs({ move: 25 }) } },
      { _id: "aRaider", name: "Raider", type: "npc", system: { attributes: attrs({ move: 30 }) } },
    ],
    users: [{ _id: GM, name: "Dana", role: 4 }],
    combat: {
      _id: "cFight", scene: "sWasteland000001", round: 1, turn: 0,
      combatants: [
        { _id: "cP", tokenId: PINKIE, name: "Pinkie", initiative: 80 },
        { _id: "cR", tokenId: RAIDER, name: "Raider", initiative: 40 },
      ],
    },
  };
}

/** A Foundry-shaped companion client: sends the module's payloads, applies nothing, acks all. */
async function vtt(world, key) {
  const socket = io(`${url}/foundry`, {
    auth: { world, key, client: { name: "dashboard-test", version: "1", vtt: "Foundry (test)" } },
    transports: ["websocket"],
    reconnection: false,
  });
  const chat = [];
  socket.on("command", (msg, ack) => {
    if (msg.op === "ChatMessage.create") chat.push(String(msg.data.content));
    ack({ ok: true });
  });
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  let n = 0;
  const send = async (event, payload) => {
    const ack = await socket.timeout(10000).emitWithAck(event, { id: `e2e-${world}-${++n}`, ...payload });
    assert.ok(ack.ok, `${event} refused: ${JSON.stringify(ack)}`);
    return ack;
  };
  const say = (user, content, speaker) =>
    send("createChatMessage", { userId: user, message: { _id: `m${n}`, author: user, content, speaker: speaker ?? {} } });
  return { socket, chat, send, say };
}

async function shot(page, name) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, `${name}.png`);
  await page.screenshot(file);
  console.log(`# screenshot: ${file}`);
}

async function signIn(page, world, key) {
  await page.fill("World", world);
  await page.fill("Key", key);
  await page.click("Sign in");
}

test("the dashboard follows an encounter live and the GM answers from it", { skip, timeout: 180000 }, async () => {
  const browser = await launch(browserName, executable);
  const clients = [];
  const viewport = { width: 1440, height: 1000 };
  try {
    const page = await browser.newPage(viewport);
    await page.goto(`${url}/`);

    // a wrong key is refused on the page, and nothing of it is kept
    await signIn(page, env.SPY_WORLD, "vtt_gm_not-the-key");
    await page.until("#signin-error", /Wrong key for world/);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await shot(page, "01-wrong-key");

    // the GM key: the key goes into the tab's session storage, never into the URL
    await signIn(page, env.SPY_WORLD, env.SPY_GM);
    await page.until("header", /GM/);
    await page.until("header", /No VTT linked yet/);
    // the empty dashboard says how to link one: this server's addresses, the world, the demo
    await page.until("section.link-help", /No VTT is linked to this world yet/);
    const help = await page.text("section.link-help");
    for (const line of [`Server URL${url}`, `World${env.SPY_WORLD}`, `${url}/foundry/module.json`,
      `${url}/roll20/VTTBridge.js`, `${url}/roll20/vttbridge-relay.user.js`, `vttbridge demo --world ${env.SPY_WORLD}`]) {
      assert.ok(help.replace(/\s+/g, "").includes(line.replace(/\s+/g, "")), `${line} in: ${help}`);
    }
    const where = await page.evaluate(() => location.href);
    assert.ok(!where.includes(env.SPY_GM) && !where.includes("key"), where);
    assert.match(await page.evaluate(() => sessionStorage.getItem("vttbridge.dashboard")), /vtt_gm_/);
    await shot(page, "02-signed-in");

    // the VTT links and sends its scene: tokens, the corner, the combat tracker
    const table = await vtt(env.SPY_WORLD, env.SPY_GM);
    clients.push(table);
    await table.send("snapshot", warehouse());
    await page.until("header", /Foundry VTT linked/);
    assert.equal(await page.count("section.link-help"), 0); // linked: nothing to explain
    await page.until("section.initiative", /round 1/);
    await page.until("section.initiative tbody", /Kevin\s+22[\s\S]*Gary\s+14[\s\S]*Thug\s+10/);
    assert.equal(await page.count("svg g.token"), 3);
    assert.equal(await page.count("svg g.region"), 1);

    // Kevin readies at the corner: the Ready, and its cells on the map
    await table.say(PLAYER, "!ready Standard Attack with pistol --when corner", { token: KEVIN, alias: "Kevin" });
    await page.until("section.readies", /Kevin readies Standard Attack with pistol/);
    await page.until("section.readies", /someone enters corner/);
    await page.until("section.readies", /Expires\s+round 2/);
    await page.until("section.initiative tbody", /Kevin\s+22\s+ready \(full action\)\s+0 of 2 half actions left/);
    await page.until("section.initiative tbody tr.active", /Gary/);
    assert.equal(await page.count("svg g.watched"), 1);
    await page.until("section.log", /Kevin readies/);
    await shot(page, "03-ready");

    // Gary's turn passes; the Thug attacks Gary: Gary is asked whether he stands off
    await table.say(GM, "!next");
    await page.until("section.initiative tbody tr.active", /Thug/);
    await table.say(GM, "!attack Gary", { token: THUG, alias: "Thug" });
    await page.until("section.questions", /stand_off/);
    await page.until("section.questions", /default take_attack in \d+ s/);
    await shot(page, "04-question");

    // an observer sees the question but cannot answer it
    const obs = await browser.newPage(viewport); // its own profile: its own session storage
    await obs.goto(`${url}/`);
    await signIn(obs, env.SPY_WORLD, env.SPY_OBS);
    await obs.until("header", /Observer \(read-only\)/);
    await obs.until("section.questions", /Read-only/);
    assert.equal(await obs.count("section.questions button"), 0);
    await shot(obs, "05-observer");

    // the GM answers from the page; the rules take it: the stand off begins
    const asked = await page.count("section.questions li");
    assert.equal(asked, 1);
    const before = table.chat.length;
    await page.click("Answer stand_off");
    await page.until("section.standoffs", /Stand off so1/);
    await page.until("section.questions", /Nobody is being asked anything/);
    await page.until("section.log", /Reflex save vs DC 11/);
    assert.ok(table.chat.slice(before).some((c) => /Reflex save vs DC 11/.test(c)), "the VTT got the rules' answer");
    await obs.until("section.standoffs", /Stand off so1/); // the observer follows too

    // round 2: the stand off's Resolve checks; the Thug loses and takes stress
    await table.say(GM, "!next");
    await page.until("section.initiative", /round 2/);
    await page.until("section.standoffs", /last Resolve check round 2/);
    await page.until("section.standoffs", /Thug[\s\S]*stress [1-6] · thresholds 10/);
    assert.match(await page.text("section.standoffs .group:nth-child(2) li.entry"), /Thug[\s\S]*stress [1-6] · thresholds 10 \(Wisdom 10\)/);
    assert.equal(await page.count("section.standoffs meter"), 2);
    await shot(page, "06-standoff-stress");
    await shot(obs, "06b-observer-standoff");

    // a Fallout: Equestria world: movement left this turn
    await page.click("Sign out");
    await signIn(page, env.FOE_WORLD, env.FOE_GM);
    await page.until("header", /Fallout: Equestria/);
    const foe = await vtt(env.FOE_WORLD, env.FOE_GM);
    clients.push(foe);
    await foe.send("snapshot", wasteland());
    await page.until("section.movement", /Pinkie\s+25 ft\s+0 ft\s+25 ft\s+75 ft/);
    const pinkie = wasteland().tokens[0];
    await foe.send("updateToken", {
      userId: GM, sceneId: "sWasteland000001", token: { ...pinkie, x: 700 }, changes: { x: 700 }, origin: { x: 500, y: 500 },
    });
    await page.until("section.movement tbody tr.active", /Pinkie\s+25 ft\s+10 ft\s+15 ft\s+65 ft\s+—\s+65 ft/);
    await page.until("section.initiative tbody tr.active", /move\s+1 of 2 actions left/);
    await shot(page, "07-foe-movement");

    // a move past the run breaks the movement rules: the GM's own drag is kept and he is told
    // why, and the rules log links the rule that said so, with the world option that shaped it
    await foe.send("updateToken", {
      userId: GM, sceneId: "sWasteland000001", token: { ...pinkie, x: 2500 }, changes: { x: 2500 }, origin: { x: 700, y: 500 },
    });
    await page.until("section.log", /Pinkie's move breaks the movement rules \(kept\): Pinkie can move 65 ft more/);
    await page.until("section.log", /FoE · Movement\s+diagonal_metric = alternating/);
    const link = await page.evaluate(() => {
      const a = [...document.querySelectorAll("section.log a.cite")].pop();
      return a && { href: a.href, text: a.textContent.trim() };
    });
    assert.deepEqual(link, { href: "https://github.com/vttbridge/vttbridge/blob/main/docs/rules.md#movement", text: "FoE · Movement" });
    assert.doesNotMatch(await page.text("section.log"), /rules\.md#movement;/); // linked, not repeated
    await shot(page, "08-rules-log-citations");

    // after the game: the session's timeline, each event with what it caused and the rules cited
    await page.click("Show the timeline");
    await page.until("section.timeline", /Pinkie moved to 25,5 \(Dana\)/);
    await page.until("section.timeline", /The VTT sent its scene \(Wasteland, 2 tokens\)/);
    await page.select("Token", "Pinkie");
    await page.select("Round", "round 1");
    await page.until("section.timeline .meta", /^3 events$/);
    const entries = await page.text("section.timeline .tl-entries");
    assert.match(entries, /round 1\s*The VTT sent its scene[\s\S]*Pinkie: IC 80/);
    assert.match(entries, /round 1\s*Pinkie moved to 7,5 \(Dana\)/);
    assert.match(entries, /round 1\s*Pinkie moved to 25,5 \(Dana\)[\s\S]*Pinkie's move breaks the movement rules \(kept\)[\s\S]*FoE · Movement/);
    assert.equal(await page.count("section.timeline a.cite"), 1);
    await page.select("Token", "Raider");
    await page.until("section.timeline .meta", /^1 event$/);
    assert.doesNotMatch(await page.text("section.timeline .tl-entries"), /moved to/);
    await page.select("Token", "every token");
    await page.click("Refresh");
    await page.until("section.timeline .meta", /^3 events$/);
    await page.select("Token", "Pinkie");
    await shot(page, "09-timeline");

    assert.deepEqual([...page.errors, ...obs.errors], []);
  } finally {
    for (const c of clients) c.socket.disconnect();
    await browser.close();
  }
});
