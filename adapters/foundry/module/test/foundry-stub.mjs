// A small stand-in of the Foundry VTT globals the module uses, as the primary GM's client sees
// them: Hooks, game (settings, users, scenes, combats, actors, socket), canvas, ui, CONFIG,
// ChatMessage and documents whose create / update / delete run the pre-hooks (a `false`
// cancels), apply the differential, run the hooks, and are recorded in `calls`.
//
// Foundry itself is proprietary and cannot run here; this covers the hook shapes and timings of
// Foundry v12-v13 as its API documentation (foundryvtt.com/api) gives them (v12-v13 data:
// ChatMessage.author/style, rolls as JSON).
// Plain ES module with no Node imports: the Node tests and the Chromium page both load it.

export const calls = [];
export const notes = [];

function clone(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

let idCounter = 0;
function randomID() {
  idCounter += 1;
  return `stub${String(idCounter).padStart(12, "0")}`;
}

// -- Hooks ----------------------------------------------------------------------------------------

export const Hooks = {
  events: new Map(),
  on(name, fn, { once = false } = {}) {
    if (!this.events.has(name)) this.events.set(name, []);
    this.events.get(name).push({ fn, once });
    return fn;
  },
  once(name, fn) {
    return this.on(name, fn, { once: true });
  },
  off(name, fn) {
    const list = this.events.get(name) ?? [];
    this.events.set(name, list.filter((h) => h.fn !== fn));
  },
  _run(name, args, stopOnFalse) {
    const list = [...(this.events.get(name) ?? [])];
    for (const h of list) {
      if (h.once) this.off(name, h.fn);
      const r = h.fn(...args);
      if (stopOnFalse && r === false) return false;
    }
    return true;
  },
  /** Foundry's Hooks.call: stops at the first `false` and returns false. */
  call(name, ...args) {
    return this._run(name, args, true);
  },
  callAll(name, ...args) {
    this._run(name, args, false);
    return true;
  },
};

// -- collections and documents --------------------------------------------------------------------

export class Collection extends Map {
  get contents() {
    return [...this.values()];
  }
  find(fn) {
    return this.contents.find(fn);
  }
  filter(fn) {
    return this.contents.filter(fn);
  }
  map(fn) {
    return this.contents.map(fn);
  }
  some(fn) {
    return this.contents.some(fn);
  }
  [Symbol.iterator]() {
    return this.values();
  }
}

function merge(target, changes) {
  for (const [k, v] of Object.entries(changes)) {
    if (k.includes(".")) {
      const [head, ...rest] = k.split(".");
      target[head] = target[head] && typeof target[head] === "object" ? target[head] : {};
      merge(target[head], { [rest.join(".")]: v });
    } else if (v && typeof v === "object" && !Array.isArray(v) && target[k] && typeof target[k] === "object") {
      merge(target[k], v);
    } else {
      target[k] = clone(v);
    }
  }
}

/** foundry.utils.expandObject: `{"system.hp.value": 3}` -> `{system: {hp: {value: 3}}}`. */
function expand(changes) {
  const out = {};
  for (const [k, v] of Object.entries(changes ?? {})) merge(out, { [k]: v });
  return out;
}

/** The differential Foundry's update hooks receive: only keys whose value changes. */
function diff(source, changes) {
  const out = {};
  for (const [k, v] of Object.entries(changes)) {
    if (k === "_id") continue;
    if (v && typeof v === "object" && !Array.isArray(v) && source[k] && typeof source[k] === "object") {
      const inner = diff(source[k], v);
      if (Object.keys(inner).length) out[k] = inner;
    } else if (!same(source[k], v)) out[k] = clone(v);
  }
  return out;
}

export class Document {
  static documentName = "Document";
  static fields = [];
  static defaults = {};
  constructor(data = {}, parent = null) {
    this._source = clone({ ...this.constructor.defaults, _id: data._id ?? randomID(), flags: {}, ...data });
    this.parent = parent;
    for (const f of this.constructor.fields) {
      if (!(f in this._source)) this._source[f] = null;
    }
  }
  get id() {
    return this._source._id;
  }
  get _id() {
    return this._source._id;
  }
  get flags() {
    return this._source.flags;
  }
  get documentName() {
    return this.constructor.documentName;
  }
  get uuid() {
    return this.parent ? `${this.parent.uuid}.${this.documentName}.${this.id}` : `${this.documentName}.${this.id}`;
  }
  getFlag(scope, key) {
    return this._source.flags?.[scope]?.[key];
  }
  toObject() {
    return clone(this._source);
  }
  /** update(changes, options): pre-hook (false cancels), differential, hook; recorded. */
  async update(changes, options = {}) {
    const userId = game.user.id;
    const record = { op: `${this.documentName}.update`, id: this.id, changes: clone(changes), options: clone(options) };
    calls.push(record);
    const changed = diff(this._source, expand(changes));
    if (Hooks.call(`preUpdate${this.documentName}`, this, changed, options, userId) === false) {
      record.cancelled = true;
      return undefined;
    }
    const real = diff(this._source, changed);
    if (!Object.keys(real).length) return this;
    merge(this._source, real);
    Hooks.callAll(`update${this.documentName}`, this, { _id: this.id, ...real }, options, userId);
    return this;
  }
  async delete(options = {}) {
    calls.push({ op: `${this.documentName}.delete`, id: this.id, options: clone(options) });
    this.collection?.delete(this.id);
    Hooks.callAll(`delete${this.documentName}`, this, options, game.user.id);
    return this;
  }
}

function fieldGetters(cls) {
  for (const f of cls.fields) {
    Object.defineProperty(cls.prototype, f, {
      get() {
        return this._source[f];
      },
      configurable: true,
    });
  }
}

export class TokenDocument extends Document {
  static documentName = "Token";
  static fields = ["name", "actorId", "actorLink", "x", "y", "elevation", "width", "height", "disposition", "hidden", "delta"];
  static defaults = { actorLink: false, x: 0, y: 0, elevation: 0, width: 1, height: 1, disposition: 0, hidden: false, delta: {} };
  /** The world actor when linked; else the synthetic actor: the base actor with the token's
   * delta over it, whose updates go into the delta (v11+ ActorDelta). */
  get actor() {
    if (this.actorLink) return game.actors.get(this.actorId);
    if (!game.actors.get(this.actorId)) return null;
    this._synthetic ??= new TokenActor(this);
    return this._synthetic;
  }
  get collection() {
    return this.parent?.tokens;
  }
  /** v11: TokenDocument#toggleActiveEffect(effectData, {overlay, active}) (v12 has
   * Actor#toggleStatusEffect instead). */
  get toggleActiveEffect() {
    if (game.release.generation >= 12) return undefined;
    return async (effectData, { active } = {}) => {
      calls.push({ op: "Token.toggleActiveEffect", id: this.id, statusId: effectData?.id, active });
      return toggleStatus(this.actor, effectData?.id, active);
    };
  }
}
fieldGetters(TokenDocument);

export class RegionDocument extends Document {
  static documentName = "Region";
  static fields = ["name", "shapes"];
}
fieldGetters(RegionDocument);

export class Scene extends Document {
  static documentName = "Scene";
  static fields = ["name", "active", "grid"];
  constructor(data = {}) {
    const { tokens = [], regions = [], ...rest } = data;
    super({ grid: { type: 1, size: 100, distance: 5, units: "ft" }, active: true, ...rest });
    this.tokens = new Collection(tokens.map((t) => [t._id, new TokenDocument(t, this)]));
    for (const t of this.tokens.values()) t._source._id = t._source._id ?? t.id;
    this.regions = new Collection(regions.map((r) => [r._id, new RegionDocument(r, this)]));
  }
  toObject() {
    return { ...clone(this._source), tokens: this.tokens.map((t) => t.toObject()) };
  }
}
fieldGetters(Scene);

/** The core status effects (v12-v13: an array; ids the module does not register itself). */
export const CORE_STATUSES = [
  { id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" },
  { id: "unconscious", name: "EFFECT.StatusUnconscious", img: "icons/svg/unconscious.svg" },
  { id: "prone", name: "EFFECT.StatusProne", img: "icons/svg/falling.svg" },
];

function toggleStatus(actor, statusId, active) {
  const known = (globalThis.CONFIG?.statusEffects ?? []).some((e) => e.id === statusId);
  if (!known) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
  const on = active ?? !actor.statuses.has(statusId);
  if (on) actor.statuses.add(statusId);
  else actor.statuses.delete(statusId);
  return on;
}

export class Actor extends Document {
  static documentName = "Actor";
  static fields = ["name", "type", "system", "ownership"];
  /** v12+: the status ids of the actor's active effects. */
  statuses = new Set();
  get isToken() {
    return false;
  }
  /** v12+: Actor#toggleStatusEffect(statusId, {active, overlay}); absent before v12. */
  get toggleStatusEffect() {
    if (game.release.generation < 12) return undefined;
    return async (statusId, { active } = {}) => {
      calls.push({ op: "Actor.toggleStatusEffect", uuid: this.uuid, statusId, active });
      return toggleStatus(this, statusId, active);
    };
  }
}
fieldGetters(Actor);

/** An unlinked token's synthetic actor: reads the base actor under the token's delta; its
 * updates change the delta and fire updateActor (its uuid names the token). */
export class TokenActor extends Actor {
  constructor(token) {
    super({ _id: token.actorId }, token);
    this.token = token;
  }
  get _source() {
    if (!this.token) return {}; // while Document's constructor runs
    const data = clone(game.actors.get(this.token.actorId)?._source ?? {});
    merge(data, clone(this.token._source.delta ?? {}));
    data._id = this.token.actorId;
    return data;
  }
  set _source(_) {
    /* built from the base actor and the delta */
  }
  get isToken() {
    return true;
  }
  async update(changes, options = {}) {
    calls.push({ op: "Actor.update", id: this.id, uuid: this.uuid, changes: clone(changes), options: clone(options) });
    const changed = diff(this._source, expand(changes));
    if (Hooks.call("preUpdateActor", this, changed, options, game.user.id) === false) return undefined;
    if (!Object.keys(changed).length) return this;
    this.token._source.delta ??= {};
    merge(this.token._source.delta, changed);
    Hooks.callAll("updateActor", this, { _id: this.id, ...changed }, options, game.user.id);
    return this;
  }
}

export class Combatant extends Document {
  static documentName = "Combatant";
  static fields = ["tokenId", "actorId", "sceneId", "name", "initiative", "hidden", "defeated"];
  static defaults = { name: "", initiative: null, hidden: false, defeated: false };
  get collection() {
    return this.parent?.combatants;
  }
}
fieldGetters(Combatant);

export class Combat extends Document {
  static documentName = "Combat";
  static fields = ["round", "turn", "active"];
  constructor(data = {}) {
    const { combatants = [], ...rest } = data;
    super({ round: 0, turn: 0, active: true, ...rest });
    this.combatants = new Collection();
    for (const c of combatants) {
      const doc = new Combatant(c, this);
      this.combatants.set(doc.id, doc);
    }
  }
  get collection() {
    return game.combats;
  }
  /** A Scene document, as on v11+ (the source keeps its id). */
  get scene() {
    return game.scenes.get(this._source.scene) ?? null;
  }
  /** Initiative order, as Combat#setupTurns sorts: high to low, unrolled last, ties by id. */
  get turns() {
    const ini = (c) => (typeof c.initiative === "number" ? c.initiative : -Infinity);
    return this.combatants.contents.sort((a, b) => ini(b) - ini(a) || (a.id > b.id ? 1 : -1));
  }
  get combatant() {
    return this.turns[this.turn ?? -1];
  }
  toObject() {
    return { ...clone(this._source), combatants: this.combatants.map((c) => c.toObject()) };
  }
  async createEmbeddedDocuments(type, datas, options = {}) {
    calls.push({ op: `${type}.create`, parent: this.id, data: clone(datas), options: clone(options) });
    const made = datas.map((d) => new Combatant(d, this));
    for (const c of made) {
      this.combatants.set(c.id, c);
      Hooks.callAll(`create${type}`, c, options, game.user.id);
    }
    return made;
  }
  static async create(data, options = {}) {
    calls.push({ op: "Combat.create", data: clone(data), options: clone(options) });
    const combat = new Combat(data);
    game.combats.set(combat.id, combat);
    Hooks.callAll("createCombat", combat, options, game.user.id);
    return combat;
  }
  /** The tracker's "next turn" button. */
  async nextTurn() {
    const next = (this.turn ?? -1) + 1;
    if (next >= this.combatants.size) return this.update({ round: this.round + 1, turn: 0 });
    return this.update({ turn: next });
  }
}
fieldGetters(Combat);

export class ChatMessage extends Document {
  static documentName = "ChatMessage";
  static fields = ["type", "style", "author", "timestamp", "flavor", "content", "speaker", "whisper", "blind", "rolls"];
  static async create(data, options = {}) {
    calls.push({ op: "ChatMessage.create", data: clone(data), options: clone(options) });
    return ChatMessage.post(data, options, game.user.id);
  }
  /** A message as it arrives from any client (`userId` is its author). */
  static post(data, options = {}, userId = game.user.id) {
    const msg = new ChatMessage({
      type: "base",
      style: 0,
      author: userId,
      timestamp: Date.now(),
      flavor: null,
      speaker: {},
      whisper: [],
      blind: false,
      rolls: [],
      ...clone(data),
    });
    game.messages.set(msg.id, msg);
    Hooks.callAll("createChatMessage", msg, options, userId);
    return msg;
  }
  static getWhisperRecipients(name) {
    return name === "GM" ? game.users.filter((u) => u.isGM) : game.users.filter((u) => u.name === name);
  }
  static getSpeaker({ token } = {}) {
    return token ? { scene: token.parent?.id, token: token.id, actor: token.actorId, alias: token.name } : { alias: game.user.name };
  }
  get collection() {
    return game.messages;
  }
}
fieldGetters(ChatMessage);

export class User extends Document {
  static documentName = "User";
  static fields = ["name", "role", "active"];
  get isGM() {
    return this.role >= 3;
  }
  get isSelf() {
    return this.id === game.user.id;
  }
}
fieldGetters(User);

class Users extends Collection {
  get activeGM() {
    const gms = this.filter((u) => u.isGM && u.active).sort((a, b) => (a.id > b.id ? 1 : -1));
    return gms[0] ?? null;
  }
}

class Settings {
  constructor() {
    this.config = new Map();
    this.values = new Map();
  }
  register(ns, key, cfg) {
    this.config.set(`${ns}.${key}`, cfg);
  }
  get(ns, key) {
    const k = `${ns}.${key}`;
    if (!this.config.has(k)) throw new Error(`setting ${k} is not registered`);
    return this.values.has(k) ? this.values.get(k) : this.config.get(k).default;
  }
  async set(ns, key, value) {
    const k = `${ns}.${key}`;
    this.values.set(k, value);
    this.config.get(k)?.onChange?.(value);
    return value;
  }
}

class MemoryStorage {
  constructor() {
    this.map = new Map();
  }
  getItem(k) {
    return this.map.has(k) ? this.map.get(k) : null;
  }
  setItem(k, v) {
    this.map.set(k, String(v));
  }
  removeItem(k) {
    this.map.delete(k);
  }
}

export let game = null;

/**
 * Install the globals for one world. `world`: {users, userId, scenes, actors, combats, system,
 * settings: {serverUrl, world, key}, generation}. Returns helpers for the tests.
 */
export function installFoundry(world) {
  calls.length = 0;
  notes.length = 0;
  for (const k of Hooks.events.keys()) Hooks.events.delete(k);
  const users = new Users((world.users ?? []).map((u) => [u._id, new User(u)]));
  const scenes = new Collection((world.scenes ?? []).map((s) => [s._id, new Scene(s)]));
  const actors = new Collection((world.actors ?? []).map((a) => [a._id, new Actor(a)]));
  const combats = new Collection();
  const socketHandlers = new Map();
  const socketSent = [];
  game = {
    version: world.version ?? "13.350",
    release: { generation: world.generation ?? 13 },
    world: { id: world.worldId ?? "warehouse-job" },
    system: world.system ?? { id: "worldbuilding", version: "0.8.2" },
    user: null,
    users,
    scenes,
    actors,
    combats,
    messages: new Collection(),
    settings: new Settings(),
    socket: {
      on: (name, fn) => socketHandlers.set(name, fn),
      emit: (name, data) => socketSent.push({ name, data: clone(data) }),
      handlers: socketHandlers,
      sent: socketSent,
    },
    get combat() {
      return combats.find((c) => c.active) ?? null;
    },
  };
  Object.defineProperty(scenes, "active", { get: () => scenes.find((s) => s.active) ?? null });
  game.user = users.get(world.userId);
  for (const c of world.combats ?? []) {
    const combat = new Combat(c);
    combats.set(combat.id, combat);
  }
  const ui = {
    notifications: {
      info: (m) => notes.push({ level: "info", text: m }),
      warn: (m) => notes.push({ level: "warn", text: m }),
      error: (m) => notes.push({ level: "error", text: m }),
    },
  };
  Object.assign(globalThis, {
    Hooks,
    game,
    ui,
    ChatMessage,
    Combat,
    CONFIG: {
      ChatMessage: { documentClass: ChatMessage },
      Combat: { documentClass: Combat },
      statusEffects: clone(CORE_STATUSES),
    },
    canvas: { ready: true, scene: scenes.active },
  });
  if (!globalThis.localStorage) globalThis.localStorage = new MemoryStorage();
  return {
    game,
    /** Run Foundry's start-up hooks, then the settings a GM pasted. */
    async boot(settings) {
      Hooks.callAll("init");
      for (const [k, v] of Object.entries(settings ?? {})) game.settings.values.set(`vttbridge.${k}`, v);
      Hooks.callAll("setup");
      Hooks.callAll("ready");
    },
  };
}
