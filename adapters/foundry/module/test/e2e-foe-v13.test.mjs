// End to end under Node, Foundry v13, Fallout: Equestria: the module's source with the real
// socket.io-client against the stand-in and a running `vttbridge serve` (a --system foe world;
// VTTBRIDGE_URL, VTTBRIDGE_WORLD, VTTBRIDGE_KEY from tests/adapters/foundry/
// test_module_e2e.py, skipped without them). The Token Ruler's colours follow the budget the
// bridge writes on the token (walk, run, sneak, beyond); a drag along waypoints is measured on
// its path; a jump waypoint goes to the jump rule. See foe-scenario.mjs.
import { test } from "node:test";
import { playFoeRuler } from "./foe-scenario.mjs";

const bridge = {
  url: process.env.VTTBRIDGE_URL,
  world: process.env.VTTBRIDGE_WORLD,
  key: process.env.VTTBRIDGE_KEY,
};

test("a FoE turn on Foundry v13: the ruler shows the rules' budget", { skip: !bridge.key && "no bridge (run through pytest)", timeout: 60000 }, async () => {
  const result = await playFoeRuler({
    bridge,
    load: () => import("../src/module.js"),
    log: (m) => console.log(`# ${m}`),
  });
  for (const line of result.transcript) console.log(`# chat: ${line}`);
});
