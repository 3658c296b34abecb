// Versions meet, under Node: the module's source links to a running `vttbridge serve` whose
// Foundry adapter supports other module versions than this one (VTTBRIDGE_URL, VTTBRIDGE_WORLD,
// VTTBRIDGE_KEY and VTTBRIDGE_EXPECT, "older" or "newer", set by tests/adapters/foundry/
// test_versions.py; skipped without them). The link stays up, and the GM is told in plain
// words, in their language, what to update.
import { test } from "node:test";
import assert from "node:assert/strict";
import { installFoundry, notes } from "./foundry-stub.mjs";
import { waitFor } from "./waiting.mjs";

const bridge = { url: process.env.VTTBRIDGE_URL, world: process.env.VTTBRIDGE_WORLD, key: process.env.VTTBRIDGE_KEY };
const expect = process.env.VTTBRIDGE_EXPECT;


test("a module of a version the bridge does not support is told so", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 30000 }, async () => {
  const foundry = installFoundry({
    generation: 14,
    userId: "gM0000000000000A",
    users: [{ _id: "gM0000000000000A", name: "Dana", role: 4, active: true }],
    scenes: [{ _id: "sWarehouse000001", name: "Warehouse", active: true, tokens: [] }],
  });
  const mod = await import("../src/module.js");
  await foundry.boot({ serverUrl: bridge.url, world: bridge.world, key: bridge.key });
  await waitFor("the link", () => notes.find((n) => /linked to/.test(n.text)));
  const told = await waitFor("the version notice", () => notes.find((n) => /vttbridge server/.test(n.text)));
  const key = expect === "older" ? "ModuleTooOld" : "ModuleTooNew";
  const template = foundry.game.i18n.translations.VTTBRIDGE.Notify[key];
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, "(?<$1>.+?)")}$`);
  const m = pattern.exec(told.text);
  assert.ok(m, `${told.text} is not the ${key} notice`);
  assert.equal(m.groups.version, mod.VERSION);
  console.log(`# notice: ${told.text}`);
  assert.equal(told.level, "warn");
  assert.equal(globalThis.vttbridge.state, "connected", "the link stays up");
  globalThis.vttbridge.stop();
});
