// A real `vttbridge serve` for the end-to-end tests: a subprocess on a free port with a
// temporary SQLite file. VTTBRIDGE_CMD (a JSON list) says how to run the CLI; the pytest driver
// passes the interpreter of its venv (`[python, "-m", "vttbridge"]`).
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import net from "node:net";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const CMD = JSON.parse(process.env.VTTBRIDGE_CMD || '["vttbridge"]');

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function cli(args) {
  return execFileSync(CMD[0], [...CMD.slice(1), ...args], { cwd: ROOT, encoding: "utf8" });
}

export class Bridge {
  /** `scripts`: passed to `serve --script` (module names or files); `adapter`: the Roll20
   * adapter to serve (`module:Class`). */
  constructor({ scripts = [], adapter = "vttbridge.adapters.roll20:Roll20Adapter" } = {}) {
    this.scripts = scripts;
    this.adapter = adapter;
    this.dir = mkdtempSync(join(tmpdir(), "vttbridge-roll20-"));
    this.db = join(this.dir, "worlds.sqlite3");
    this.proc = null;
    this.output = "";
  }

  /** Create a world; returns its GM key. */
  world(name, system = "foe") {
    const out = cli(["world", "create", name, "--system", system, "--db", this.db]);
    const m = /GM key[^:]*:\s*(\S+)/.exec(out);
    if (!m) throw new Error(`no GM key in: ${out}`);
    return m[1];
  }

  async start(port) {
    this.port = port || this.port || (await freePort());
    this.url = `http://127.0.0.1:${this.port}`;
    const args = [
      ...CMD.slice(1), "serve", "--db", this.db, "--port", String(this.port),
      "--adapter", this.adapter, "--no-default-world", "--log-level", "info",
      ...this.scripts.flatMap((s) => ["--script", s]),
    ];
    this.proc = spawn(CMD[0], args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (chunk) => {
      this.output += chunk.toString();
    };
    this.proc.stdout.on("data", keep);
    this.proc.stderr.on("data", keep);
    const end = Date.now() + 20000;
    for (;;) {
      if (this.proc.exitCode !== null) throw new Error(`vttbridge serve exited:\n${this.output}`);
      try {
        const res = await fetch(`${this.url}/healthz`);
        if (res.ok) return this;
      } catch {
        // not listening yet
      }
      if (Date.now() > end) throw new Error(`vttbridge serve did not start:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stop the server; one that has not exited `grace` ms after SIGTERM is killed. */
  async stop(signal = "SIGTERM", grace = 10000) {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const done = new Promise((r) => proc.once("exit", r));
    const started = Date.now();
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), grace);
    await done;
    clearTimeout(timer);
    this.stopMs = Date.now() - started;
  }

  async state(world, key) {
    const res = await fetch(`${this.url}/api/worlds/${world}/state`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    return res.json();
  }

  async close() {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
