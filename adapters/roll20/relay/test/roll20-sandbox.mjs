// A small stand-in of Roll20 for tests: the Mod sandbox globals the VTTBridge script uses (on,
// sendChat, getObj, findObjs, createObj, Campaign, state, playerIsGM, log, and globalconfig: the
// options saved on a one-click script's Mod page), the objects of one campaign,
// what players do at the table (drag a token, type in chat, edit the turn order), and, when a
// page is given, the GM's chat log as Roll20 renders it.
//
// Like Roll20: a script's `set` (and `setWithWorker`, `createObj`) fires no event; `prev` is a
// plain snapshot of the properties;
// property handlers (`change:graphic:left`) run before general ones; API chat is delivered to
// `chat:message` handlers (scripts see their own messages) and rendered as HTML, players' chat
// is rendered as text; `!` lines are `api` messages nobody sees.
import vm from "node:vm";
import { readFileSync } from "node:fs";

let nextId = 1;
export function newId(prefix = "-O") {
  return `${prefix}${String(nextId++).padStart(6, "0")}`;
}

class R20Obj {
  constructor(world, type, attrs) {
    this._world = world;
    this.attributes = { _type: type, ...attrs };
    if (!this.attributes._id) this.attributes._id = newId();
    this.id = this.attributes._id;
  }

  get(key) {
    return this.attributes[key];
  }

  /** A script's set: records the call, fires no event. */
  set(keyOrAttrs, value) {
    const attrs = typeof keyOrAttrs === "string" ? { [keyOrAttrs]: value } : { ...keyOrAttrs };
    const type = this.attributes._type;
    if (type === "campaign") this._world.calls.push({ op: "Campaign.set", attrs });
    else this._world.calls.push({ op: "set", type, id: this.id, attrs });
    Object.assign(this.attributes, attrs);
  }

  /** An attribute's set that runs the character sheet's workers (no event either). */
  setWithWorker(attrs) {
    if (this.attributes._type !== "attribute") throw new Error("setWithWorker is for attributes");
    this._world.calls.push({ op: "setWithWorker", type: "attribute", id: this.id, attrs: { ...attrs } });
    Object.assign(this.attributes, attrs);
  }

  toJSON() {
    return { ...this.attributes };
  }
}

export class Roll20 {
  constructor({ dom = null, gm = "-OPlayGM" } = {}) {
    this.dom = dom; // the GM's page (a jsdom window), or null
    this.gm = gm;
    this.objects = new Map();
    this.handlers = [];
    this.state = {};
    this.globalconfig = {}; // the options saved on each script's Mod page (one-click installs)
    this.calls = []; // what the Mod script did: sendChat, set, Campaign.set
    this.chat = []; // every chat message: {who, type, content, target, noarchive, from}
    this.logs = [];
    this.msgCount = 0;
    this.campaign = new R20Obj(this, "campaign", {
      _id: "root",
      turnorder: "",
      playerpageid: "",
      initiativepage: false,
    });
  }

  // -- the objects of the campaign -----------------------------------------------------------
  create(type, attrs) {
    const obj = new R20Obj(this, type, attrs);
    this.objects.set(obj.id, obj);
    return obj;
  }

  /** A script's createObj: the types Roll20 allows, `characterid` stored as `_characterid`. */
  scriptCreate(type, attrs) {
    const allowed = ["graphic", "text", "path", "character", "ability", "attribute", "handout", "rollabletable", "tableitem", "macro"];
    if (!allowed.includes(type)) throw new Error(`createObj cannot make a ${type}`);
    const data = { ...attrs };
    for (const k of ["characterid", "pageid"]) {
      if (k in data) {
        data[`_${k}`] = data[k];
        delete data[k];
      }
    }
    const obj = this.create(type, data);
    this.calls.push({ op: "createObj", type, id: obj.id, attrs: { ...attrs } });
    return obj;
  }

  getObj(type, id) {
    if (type === "campaign") return this.campaign;
    const obj = this.objects.get(id);
    return obj && obj.get("_type") === type ? obj : undefined;
  }

  findObjs(attrs) {
    return [...this.objects.values()].filter((o) =>
      Object.entries(attrs).every(([k, v]) => o.get(k) === v),
    );
  }

  player(name, { gm = false, id } = {}) {
    const p = this.create("player", { _id: id || newId(), _displayname: name, _online: true });
    if (gm) this.gm = p.id;
    return p;
  }

  playerIsGM(id) {
    return id === this.gm;
  }

  // -- the sandbox ---------------------------------------------------------------------------
  globals() {
    return {
      on: (event, fn) => this.handlers.push([event, fn]),
      sendChat: (who, text, cb, opts) => this.apiChat(who, text, cb, opts || {}),
      getObj: (type, id) => this.getObj(type, id),
      findObjs: (attrs) => this.findObjs(attrs),
      createObj: (type, attrs) => this.scriptCreate(type, attrs),
      Campaign: () => this.campaign,
      state: this.state,
      globalconfig: this.globalconfig,
      playerIsGM: (id) => this.playerIsGM(id),
      log: (...args) => this.logs.push(args.join(" ")),
      setTimeout,
      clearTimeout,
      console,
    };
  }

  /** Run Mod script files, unmodified, in a fresh context with the sandbox globals: one
   * scope for all of them, as Roll20 runs a game's scripts (one may use another's API). */
  load(...paths) {
    this.context = vm.createContext(this.globals());
    for (const path of paths) vm.runInContext(readFileSync(path, "utf8"), this.context, { filename: path });
    return this.context;
  }

  fire(event, ...args) {
    for (const [name, fn] of this.handlers) if (name === event) fn(...args);
  }

  fireChange(obj, prev) {
    const type = obj.get("_type");
    const base = type === "campaign" ? "change:campaign" : `change:${type}`;
    for (const key of Object.keys(prev)) {
      if (prev[key] !== obj.get(key)) this.fire(`${base}:${key}`, obj, prev);
    }
    if (type !== "campaign") this.fire(base, obj, prev);
  }

  ready() {
    this.fire("ready");
  }

  // -- what people do at the table -------------------------------------------------------------
  /** A player drags a token through px waypoints to the last point (Roll20's lastmove). */
  drag(id, ...points) {
    const obj = this.objects.get(id);
    const prev = obj.toJSON();
    const start = [obj.get("left"), obj.get("top")];
    const end = points[points.length - 1];
    const way = [start, ...points.slice(0, -1)].flat();
    Object.assign(obj.attributes, { left: end[0], top: end[1], lastmove: way.join(",") });
    this.fireChange(obj, prev);
    return obj;
  }

  /** Someone edits an object by hand: a token (bars, name...), an attribute on a sheet. */
  edit(id, attrs) {
    const obj = this.objects.get(id);
    const prev = obj.toJSON();
    Object.assign(obj.attributes, attrs);
    this.fireChange(obj, prev);
    return obj;
  }

  /** The GM drops a token on the page: an add, then Roll20's own set-up changes. */
  drop(attrs) {
    const obj = this.create("graphic", { _subtype: "token", layer: "objects", ...attrs });
    this.fire("add:graphic", obj);
    return obj;
  }

  /** The GM edits the turn order (advances it, types a pr...). */
  turnorder(rows) {
    const prev = this.campaign.toJSON();
    this.campaign.attributes.turnorder = JSON.stringify(rows);
    this.fire("change:campaign:turnorder", this.campaign, prev);
  }

  get order() {
    const raw = this.campaign.get("turnorder");
    return raw ? JSON.parse(raw) : [];
  }

  /** A player types a chat line. `[[expr]]` are inline rolls with the totals in `rolls`. */
  type(playerid, text, { selected = [], rolls = [] } = {}) {
    const player = this.objects.get(playerid);
    const name = player ? player.get("_displayname") : "Someone";
    const who = this.playerIsGM(playerid) ? `${name} (GM)` : name;
    const inlinerolls = [];
    const content = text.replace(/\[\[(.+?)\]\]/g, (_, expr) => {
      const k = inlinerolls.length;
      const total = rolls[k] ?? 10;
      inlinerolls.push({
        expression: expr,
        results: { type: "V", resultType: "sum", total, rolls: [] },
        rollid: newId("-ORoll"),
        signature: "sig",
      });
      return `$[[${k}]]`;
    });
    const api = content.startsWith("!");
    const msg = { who, playerid, type: api ? "api" : "general", content };
    if (inlinerolls.length) msg.inlinerolls = inlinerolls;
    if (api && selected.length) msg.selected = selected.map((id) => ({ _id: id, _type: "graphic" }));
    this.deliver(msg, { from: "player", noarchive: false });
  }

  apiChat(speakingAs, text, callback, opts) {
    this.calls.push({ op: "sendChat", speakingAs, message: text, options: opts });
    let type = "general";
    let target;
    let content = text;
    const w = /^\/w\s+(?:"([^"]+)"|(\S+))\s+([\s\S]*)$/.exec(text);
    if (w) {
      type = "whisper";
      target = w[1] || w[2];
      content = w[3];
    } else if (text.startsWith("!")) {
      type = "api";
    }
    const msg = { who: speakingAs, playerid: "API", type, content, target };
    if (callback) return callback([msg]);
    this.deliver(msg, { from: "api", noarchive: !!opts.noarchive });
  }

  deliver(msg, { from, noarchive }) {
    // like Roll20: through its server, so later than the call that sent it
    setImmediate(() => {
      this.chat.push({ ...msg, from, noarchive });
      this.fire("chat:message", { ...msg });
      this.render(msg, from);
    });
  }

  /** The GM's chat log: API lines as HTML, players' lines as text, `api` lines not at all. */
  render(msg, from) {
    if (!this.dom || msg.type === "api") return;
    const toGm = msg.type === "whisper" && String(msg.target).toLowerCase() === "gm";
    if (msg.type === "whisper" && !toGm && from !== "player") return;
    const doc = this.dom.document;
    const el = doc.createElement("div");
    this.msgCount += 1;
    el.className = msg.type === "whisper" ? "message private whisper" : "message general";
    el.setAttribute("data-messageid", `-Omsg${this.msgCount}`);
    const by = doc.createElement("span");
    by.className = "by";
    by.textContent = msg.type === "whisper" ? `${msg.who} (To ${msg.target}):` : `${msg.who}:`;
    el.appendChild(by);
    const body = doc.createElement("span");
    if (from === "api") body.innerHTML = msg.content;
    else body.textContent = msg.content;
    el.appendChild(body);
    doc.querySelector("#textchat .content").appendChild(el);
  }

  /** Wire the page's chat box: what the GM sends is typed by the GM. */
  attachChatBox() {
    const doc = this.dom.document;
    doc.querySelector("#textchat-input .btn").addEventListener("click", () => {
      const input = doc.querySelector("#textchat-input textarea");
      const text = input.value;
      input.value = "";
      if (text.trim()) this.type(this.gm, text);
    });
  }

  // -- reading what the Mod did ----------------------------------------------------------------
  /** Chat lines from scripts a person sees (not the hidden frames). */
  visibleChat() {
    return this.chat.filter(
      (m) => m.from === "api" && m.type !== "api" && !String(m.content).includes("VTTB1|"),
    );
  }
}

export const PAGE_HTML = `<!doctype html><html><body>
<div id="textchat"><div class="content"></div></div>
<div id="textchat-input"><textarea></textarea><button class="btn">Send</button></div>
</body></html>`;

const FRAME = /VTTB1\|([A-Za-z0-9]+)\|(\d+)\|(\d+)\/(\d+)\|([A-Za-z0-9%._~-]*)/g;

/** The frames the Mod sent, decoded: [{key, k, b}] (multi-part frames joined). */
export function decodeFrames(chat) {
  const parts = new Map();
  const out = [];
  for (const m of chat) {
    if (m.from !== "api") continue; // only the Mod writes frames
    for (const f of String(m.content).matchAll(FRAME)) {
      const key = `${f[1]}-${f[2]}`;
      const entry = parts.get(key) || { total: Number(f[4]), got: [] };
      entry.got[Number(f[3]) - 1] = f[5];
      parts.set(key, entry);
      if (entry.got.filter((x) => x !== undefined).length === entry.total) {
        out.push({ key, parts: entry.total, ...JSON.parse(decodeURIComponent(entry.got.join(""))) });
      }
    }
  }
  return out;
}

export function encode(text) {
  return encodeURIComponent(text).replace(
    /[!'()*~]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

/** Wait `ms`, then until what the sandbox delivers through `setImmediate` (chat, as Roll20's
 * server would, and the Mod's answers to it) has arrived: a timer alone can fire in between
 * two hops of such a chain on a busy machine, and a test would read the chat too early. */
export const tick = async (ms = 0) => {
  await new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
};

/** Wait until `check()` is truthy (polling), or fail after `ms`. */
export async function until(check, ms = 5000, what = "condition") {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await tick(10);
  }
}
