// End to end under Node: the module's source (src/module.js, unmodified) with the real
// socket.io-client, against the Foundry stand-in as Foundry v12 (a drag updates x and y; a
// watched one is held by preUpdateToken) and a running `vttbridge serve`. e2e-v13.test.mjs
// plays the same on v13.
// The pytest driver (tests/adapters/foundry/test_module_e2e.py) starts the server and sets
// VTTBRIDGE_URL, VTTBRIDGE_WORLD and VTTBRIDGE_KEY; without them this test is skipped.
import { test } from "node:test";
import { playCorner } from "./scenario.mjs";

const bridge = {
  url: process.env.VTTBRIDGE_URL,
  world: process.env.VTTBRIDGE_WORLD,
  key: process.env.VTTBRIDGE_KEY,
};

test("Kevin's corner Ready and a Stand Off, through the module and a real bridge (Foundry v12)", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 60000 }, async () => {
  const result = await playCorner({
    generation: 12,
    bridge,
    load: () => import("../src/module.js"),
    log: (m) => console.log(`# ${m}`),
  });
  for (const line of result.transcript) console.log(`# chat: ${line}`);
});
