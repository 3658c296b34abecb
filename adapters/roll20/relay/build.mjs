// Bundle the relay with socket.io-client into one userscript: dist/vttbridge-relay.user.js.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
const banner = `// ==UserScript==
// @name         VTTBridge relay for Roll20
// @namespace    vttbridge
// @version      ${pkg.version}
// @description  Carries the VTTBridge Mod script's messages between the Roll20 chat and a vttbridge server.
// @match        https://app.roll20.net/editor
// @match        https://app.roll20.net/editor/*
// @grant        none
// @run-at       document-idle
// ==/UserScript==`;

await build({
  entryPoints: [new URL("./src/main.js", import.meta.url).pathname],
  outfile: new URL("./dist/vttbridge-relay.user.js", import.meta.url).pathname,
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["es2020"],
  banner: { js: banner },
  legalComments: "inline",
  logLevel: "info",
});
