// Bundle src/module.js and the real socket.io-client into dist/vttbridge.js (an ES module that
// Foundry loads through module.json "esmodules"). dist/vttbridge.js is committed: the bridge
// serves the module from it (/foundry/module.json). `node scripts/build.mjs [OUTDIR]` writes
// elsewhere (the test that the committed build is current); paths in the bundle are relative
// to this folder, so the bytes do not depend on where the build runs from.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist"));

await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, "src/module.js")],
  outfile: path.join(outdir, "vttbridge.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  sourcemap: true,
  minify: false,
  legalComments: "eof",
  logLevel: "info",
});
