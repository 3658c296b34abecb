// End to end under Node, Foundry v14: the module's source (src/module.js, unmodified) with the
// real socket.io-client, against the Foundry stand-in as v14 (Scene Levels, hold regions with the
// module's Region behavior type, User#query dialogs) and a running `vttbridge serve`
// (VTTBRIDGE_URL, VTTBRIDGE_WORLD, VTTBRIDGE_KEY, set by tests/adapters/foundry/
// test_module_e2e.py; skipped without them). Gary's drag through the watched corner is paused
// where it enters the corner's hold region; the Thug's drag, which stops in the corner's first
// cell, in the cell before it; the Ready resolves through the query dialog, and the movement
// resumes.
import { test } from "node:test";
import { playCorner } from "./scenario.mjs";

const bridge = {
  url: process.env.VTTBRIDGE_URL,
  world: process.env.VTTBRIDGE_WORLD,
  key: process.env.VTTBRIDGE_KEY,
};

test("Kevin's corner on Foundry v14: held moves are paused and resumed", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 60000 }, async () => {
  const result = await playCorner({
    generation: 14,
    bridge,
    load: () => import("../src/module.js"),
    log: (m) => console.log(`# ${m}`),
  });
  for (const line of result.transcript) console.log(`# chat: ${line}`);
});
