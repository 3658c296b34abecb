// Two ways to drive a real browser for test/browser.test.mjs, behind one small page interface
// (goto, fill by label, pick an option by label, click a button by name, wait for text, count,
// text, evaluate, screenshot): playwright-core with Debian's Chromium, and WebDriver BiDi spoken
// directly to Debian's firefox-esr (whose BiDi lacks a command playwright-core 1.65 needs for a context).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";

const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// -- what the test needs of a page, in the page ------------------------------------------------

function fillInPage([label, value]) {
  const l = [...document.querySelectorAll("label")].find((x) => x.textContent.trim() === label);
  const el = l && document.getElementById(l.htmlFor);
  if (!el) throw new Error(`no field labelled ${label}`);
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  return true;
}

function selectInPage([label, text]) {
  const l = [...document.querySelectorAll("label")].find((x) => x.textContent.trim() === label);
  const el = l && document.getElementById(l.htmlFor);
  const option = el && [...el.options].find((o) => o.textContent.trim() === text);
  if (!option) throw new Error(`no option ${text} in the field labelled ${label}`);
  el.value = option.value;
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
}

function clickInPage(name) {
  const b = [...document.querySelectorAll("button")].find((x) => x.textContent.trim() === name);
  if (!b) throw new Error(`no button ${name}`);
  b.click();
  return true;
}

function matchesInPage([sel, src, flags]) {
  const el = document.querySelector(sel);
  return Boolean(el && new RegExp(src, flags).test(el.innerText));
}

// -- Chromium: playwright-core ---------------------------------------------------------------

class PlaywrightPage {
  constructor(page) {
    this.page = page;
    this.errors = [];
    page.on("pageerror", (e) => this.errors.push(String(e)));
  }
  goto(url) {
    return this.page.goto(url);
  }
  fill(label, value) {
    return this.page.getByLabel(label).fill(value); // real typing
  }
  select(label, text) {
    return this.page.getByLabel(label, { exact: true }).selectOption({ label: text }); // a real pick
  }
  click(name) {
    return this.page.getByRole("button", { name }).click(); // a real click
  }
  async until(selector, re, timeout = 15000) {
    await this.page.waitForFunction(matchesInPage, [selector, re.source, re.flags], { timeout });
  }
  count(selector) {
    return this.page.locator(selector).count();
  }
  text(selector) {
    return this.page.locator(selector).first().innerText();
  }
  evaluate(fn, arg) {
    return this.page.evaluate(fn, arg);
  }
  screenshot(file) {
    return this.page.screenshot({ path: file, fullPage: true });
  }
}

async function chromium(executablePath) {
  const pw = await import("playwright-core");
  const browser = await pw.chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  return {
    async newPage(viewport) {
      const context = await browser.newContext({ viewport });
      return new PlaywrightPage(await context.newPage());
    },
    close: () => browser.close(),
  };
}

// -- Firefox: WebDriver BiDi --------------------------------------------------------------------

class BidiPage {
  constructor(session, context) {
    this.session = session;
    this.context = context;
    this.errors = [];
  }
  goto(url) {
    return this.session.send("browsingContext.navigate", { context: this.context, url, wait: "complete" });
  }
  async evaluate(fn, arg) {
    const res = await this.session.send("script.callFunction", {
      functionDeclaration: `async (json) => JSON.stringify(await (${fn})(JSON.parse(json)) ?? null)`,
      arguments: [{ type: "string", value: JSON.stringify(arg ?? null) }],
      target: { context: this.context },
      awaitPromise: true,
    });
    if (res.type === "exception") throw new Error(res.exceptionDetails.text);
    return JSON.parse(res.result.value);
  }
  fill(label, value) {
    return this.evaluate(fillInPage, [label, value]);
  }
  select(label, text) {
    return this.evaluate(selectInPage, [label, text]);
  }
  click(name) {
    return this.evaluate(clickInPage, name);
  }
  async until(selector, re, timeout = 15000) {
    const deadline = Date.now() + timeout;
    while (!(await this.evaluate(matchesInPage, [selector, re.source, re.flags]))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${re} in ${selector}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  count(selector) {
    return this.evaluate((sel) => document.querySelectorAll(sel).length, selector);
  }
  text(selector) {
    return this.evaluate((sel) => document.querySelector(sel)?.innerText ?? "", selector);
  }
  async screenshot(file) {
    const { data } = await this.session.send("browsingContext.captureScreenshot", { context: this.context, origin: "document" });
    writeFileSync(file, Buffer.from(data, "base64"));
  }
}

async function firefox(executablePath) {
  const profile = mkdtempSync(path.join(os.tmpdir(), "dashboard-firefox-"));
  const proc = spawn(executablePath, ["--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0", "about:blank"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const endpoint = await new Promise((resolve, reject) => {
    let seen = "";
    const look = (chunk) => {
      seen += chunk;
      const m = seen.match(/WebDriver BiDi listening on (ws:\/\/\S+)/);
      if (m) resolve(m[1]);
    };
    proc.stdout.on("data", look);
    proc.stderr.on("data", look);
    proc.once("exit", (code) => reject(new Error(`firefox exited (${code}): ${seen}`)));
  });
  const ws = new WebSocket(`${endpoint}/session`);
  await once(ws, "open");
  let next = 0;
  const waiting = new Map();
  const pages = new Map();
  ws.on("message", (raw) => {
    const msg = JSON.parse(raw);
    if (msg.method === "log.entryAdded" && msg.params.type === "javascript" && msg.params.level === "error") {
      // Firefox also logs what befalls a socket.io websocket as a script error (Chromium
      // does not): one that could not be opened, or was cut by a page load. socket.io-client
      // handles both itself (it falls back or reconnects), and the test goes on to check the
      // page live; an error of the page's own script names no such URL.
      if (/wss?:\/\/\S+\/socket\.io\/\?EIO=/.test(msg.params.text)) return;
      pages.get(msg.params.source?.context)?.errors.push(msg.params.text);
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.type === "error") w.reject(new Error(`${msg.error}: ${msg.message}`));
    else w.resolve(msg.result);
  });
  const session = {
    send(method, params) {
      const id = ++next;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
  };
  await session.send("session.new", { capabilities: {} });
  await session.send("session.subscribe", { events: ["log.entryAdded"] });
  return {
    async newPage(viewport) {
      const { userContext } = await session.send("browser.createUserContext", {});
      const { context } = await session.send("browsingContext.create", { type: "tab", userContext });
      await session.send("browsingContext.setViewport", { context, viewport });
      const page = new BidiPage(session, context);
      pages.set(context, page);
      return page;
    },
    async close() {
      await Promise.race([session.send("browser.close", {}).catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
      ws.close();
      proc.kill();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A browser: `name` is "chromium" or "firefox". */
export function launch(name, executablePath) {
  return name === "firefox" ? firefox(executablePath) : chromium(executablePath);
}
