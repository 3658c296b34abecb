// Bundle the dashboard (src/main.js with Preact, htm and socket.io-client; src/dashboard.css)
// into dist/, which is committed: the bridge serves it and ships it with the Python package.
// `node build.mjs [OUTDIR]` writes elsewhere (the test that the committed build is current).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist"));

await build({
  absWorkingDir: root,
  entryPoints: [
    { in: "src/main.js", out: "dashboard" },
    { in: "src/dashboard.css", out: "dashboard" },
  ],
  outdir,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox115"],
  minify: true,
  legalComments: "eof",
  define: { __VERSION__: JSON.stringify(pkg.version) },
  logLevel: "warning",
});
