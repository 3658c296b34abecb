// End to end in headless Chromium: the *built bundle* (npm run build -> dist/vttbridge.js, with
// socket.io-client's browser build) loaded by a page next to the Foundry stand-in, against a
// running `vttbridge serve`. Needs Debian's chromium (CHROMIUM_PATH overrides /usr/bin/chromium)
// and the bridge variables the pytest driver sets; skipped without them. VTTBRIDGE_SCENARIO
// picks what the page plays (browser.html): corner12, corner13 (the default) or foe13.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const chromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const bridge = { url: process.env.VTTBRIDGE_URL, world: process.env.VTTBRIDGE_WORLD, key: process.env.VTTBRIDGE_KEY };
const scenario = process.env.VTTBRIDGE_SCENARIO || "corner13";
const skip = !bridge.key ? "no bridge (run through pytest)" : !existsSync(chromium) ? `no Chromium at ${chromium}` : false;

const TYPES = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".map": "application/json", ".json": "application/json" };

function serve() {
  const server = createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

test(`the built bundle plays ${scenario} in headless Chromium`, { skip, timeout: 120000 }, async () => {
  execFileSync(process.execPath, [path.join(root, "scripts/build.mjs")], { stdio: "ignore" });
  const { chromium: pw } = await import("playwright-core");
  const server = await serve();
  const browser = await pw.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    page.on("console", (m) => console.log(`# page: ${m.text()}`));
    page.on("pageerror", (e) => console.log(`# page error: ${e}`));
    const q = new URLSearchParams({ ...bridge, scenario }).toString();
    await page.goto(`http://127.0.0.1:${server.address().port}/test/browser.html?${q}`);
    await page.waitForFunction(() => window.__result !== null, null, { timeout: 60000 });
    const result = await page.evaluate(() => window.__result);
    assert.ok(result.ok, result.error);
    for (const line of result.transcript) console.log(`# chat: ${line}`);
    const log = await page.textContent("#log");
    console.log(log.trim().split("\n").map((l) => `# ${l}`).join("\n"));
  } finally {
    await browser.close();
    server.close();
  }
});
