// Bundle src/module.js and the real socket.io-client into dist/vttbridge.js (an ES module that
// Foundry loads through module.json "esmodules").
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

await build({
  entryPoints: [path.join(root, "src/module.js")],
  outfile: path.join(root, "dist/vttbridge.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  sourcemap: true,
  minify: false,
  legalComments: "eof",
  logLevel: "info",
});
