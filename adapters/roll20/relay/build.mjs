// Bundle the relay with socket.io-client into one userscript: dist/vttbridge-relay.user.js,
// which is committed: the bridge serves it (/roll20/vttbridge-relay.user.js). `node build.mjs
// [OUTDIR]` writes elsewhere (the test that the committed build is current).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist"));
// Where a userscript manager looks for a newer relay: the project's latest public release. The
// bridge serves this file with both URLs pointing at itself, and a release made for another
// address re-points them (adapters/bridge/install.py, relay_userscript).
const home = "https://github.com/vttbridge/vttbridge";
const latest = `${home}/releases/latest/download/vttbridge-relay.user.js`;
const banner = `// ==UserScript==
// @name         VTTBridge relay for Roll20
// @namespace    vttbridge
// @version      ${pkg.version}
// @description  Carries the VTTBridge Mod script's messages between the Roll20 chat and a vttbridge server.
// @homepageURL  ${home}
// @supportURL   ${home}/issues
// @updateURL    ${latest}
// @downloadURL  ${latest}
// @match        https://app.roll20.net/editor
// @match        https://app.roll20.net/editor/*
// @grant        none
// @run-at       document-idle
// ==/UserScript==`;

await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, "src/main.js")],
  outfile: path.join(outdir, "vttbridge-relay.user.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["es2020"],
  banner: { js: banner },
  legalComments: "inline",
  logLevel: "info",
});
