// Versions meet, end to end: the Mod script and the built relay against a real `vttbridge
// serve` whose Roll20 adapter supports today's relay but only Mod scripts from 9.0 on
// (tests/adapters/companions.py). The relay tells the bridge the Mod's version as the Mod says
// it in chat; the bridge answers that it does not support it, in plain words; the relay's box
// says so and the GM gets a whisper. The link stays up.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { JSDOM } from "jsdom";
import { Roll20, PAGE_HTML, until, tick } from "./roll20-sandbox.mjs";
import { Bridge } from "./bridge.mjs";

const MOD = fileURLToPath(new URL("../../mod/VTTBridge.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/vttbridge-relay.user.js", import.meta.url));
const WORLD = "versions";

let bridge;
let dom;
let r20;
let relay;

before(async () => {
  bridge = new Bridge({ adapter: "tests.adapters.companions:ModTooOld" });
  const key = bridge.world(WORLD, "spycraft");
  await bridge.start();
  dom = new JSDOM(PAGE_HTML, { url: "https://app.roll20.net/editor/", runScripts: "outside-only" });
  r20 = new Roll20({ dom: dom.window });
  r20.player("Dana", { gm: true, id: "-OPlayGM" });
  const page = r20.create("page", { _id: "-OPage01", name: "Cave", snapping_increment: 1, scale_number: 5, scale_units: "ft" });
  r20.campaign.attributes.playerpageid = page.id;
  r20.attachChatBox();
  r20.load(MOD);
  r20.ready();
  dom.window.localStorage.setItem("vttbridge.relay", JSON.stringify({ url: bridge.url, world: WORLD, key }));
  dom.window.eval(readFileSync(BUNDLE, "utf8"));
  relay = dom.window.vttbridgeRelay;
});

after(async () => {
  if (relay) relay.stop();
  await tick(100);
  if (bridge) await bridge.close();
  if (dom) dom.window.close();
});

test("a Mod script the bridge does not support: the relay's box and a GM whisper say so", async () => {
  await until(() => relay.state === "connected", 10000, "the link");
  const box = dom.window.document.getElementById("vttbridge-relay");
  const said = /VTTBridge 0\.1\.0 is older than this vttbridge server \(\S+\) supports \(9\.0\.0 or later\); update VTTBridge\./;
  await until(() => said.test(box.textContent), 10000, () => `the notice in the box: ${box.textContent}`);
  assert.equal(box.getAttribute("data-state"), "version");
  const whisper = await until(() => r20.chat.find((m) => m.from === "player" && /^\/w gm VTTBridge: /.test(m.content)), 5000, "the whisper");
  assert.match(whisper.content, said);
  assert.equal(relay.state, "connected", "the link stays up");
  await tick(200);
  assert.equal(r20.chat.filter((m) => /^\/w gm VTTBridge: /.test(m.content)).length, 1, "said once");
});
