// End to end under Node, Foundry v13: the module's source (src/module.js, unmodified) with the
// real socket.io-client, against the Foundry stand-in's v13 movement (TokenDocument#move,
// preMoveToken / moveToken, pauseMovement / resumeMovement) and a running `vttbridge serve`
// (VTTBRIDGE_URL, VTTBRIDGE_WORLD, VTTBRIDGE_KEY, set by tests/adapters/foundry/
// test_module_e2e.py; skipped without them). A drag into the watched corner is paused in the
// cell before it, the Ready resolves, and the movement resumes.
import { test } from "node:test";
import { playCorner } from "./scenario.mjs";

const bridge = {
  url: process.env.VTTBRIDGE_URL,
  world: process.env.VTTBRIDGE_WORLD,
  key: process.env.VTTBRIDGE_KEY,
};

test("Kevin's corner on Foundry v13: held moves are paused and resumed", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 60000 }, async () => {
  const result = await playCorner({
    generation: 13,
    bridge,
    load: () => import("../src/module.js"),
    log: (m) => console.log(`# ${m}`),
  });
  for (const line of result.transcript) console.log(`# chat: ${line}`);
});
