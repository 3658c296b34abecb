// A small stand-in of the Foundry VTT globals the module uses, as one client sees them (the
// primary GM's, or a player's): Hooks, game (settings, users, scenes, combats, actors, socket,
// i18n), canvas, ui, CONFIG, CONST, ChatMessage, foundry.applications.api.DialogV2, and
// documents whose create / update / delete run the pre-hooks (a `false` cancels), apply the
// differential, run the hooks, and are recorded in `calls`.
//
// Foundry itself is proprietary and cannot run here. The stand-in is type-checked with the
// module against the community's Foundry types (fvtt-types) plus the module's declarations of
// what v14 adds (types/foundry-v14.ts): each class and global here may only have members those
// types declare (the checks at the end of this file; its own machinery is private, `#`, or
// module-level). The hook shapes and timings follow Foundry's API reference (v12-v14 data:
// ChatMessage.author/style, rolls as JSON). `generation` picks the Foundry it plays:
//   - 12: a move is an update of x/y, preUpdateToken can cancel it (v11-v12);
//   - 13 (the default): tokens move as Version 13 documents it. TokenDocument#move(waypoints,
//     options) is an update whose `movement` option carries the waypoints; #movement
//     (TokenMovementData: id, chain, origin, destination, passed and pending sections with their
//     waypoints, `action` on each, intermediate grid steps marked `intermediate`, method, user,
//     state "pending" | "paused" | "stopped" | "completed"); an update of x/y alone is a movement
//     too (one checkpoint waypoint, method "api"); a movement is split at its first checkpoint:
//     one update per leg. hookEvents.preMoveToken (document, movement, operation) fires on the
//     mover's client before each leg and can only reject it; hookEvents.moveToken(document,
//     movement, operation, user) after each leg; the mover's client then continues with the
//     pending waypoints (chain: the ids before). #pauseMovement(key) on the mover's client
//     while a movement is pending: a Promise<boolean> resolved when #resumeMovement(movementId,
//     key) resumes it (true) or it stops (false); #resumeMovement from another client broadcasts
//     to the mover (here: recorded); #stopMovement() on the mover's client; a new movement that
//     is no continuation stops a pending or paused one (pauseToken / stopToken fire). The
//     TokenRuler's refresh({passedWaypoints, pendingWaypoints, plannedMovement}) asks
//     _getSegmentStyle(waypoint) and _getGridHighlightStyle(waypoint, offset) and records what
//     it would draw in `drawn`.
//   - 14: as 13, with Scene Levels: a token, each waypoint and each position has a `level`
//     (TokenMeasuredMovementWaypoint#level, the previous or source level by default), a Region
//     its `levels` (RegionData#levels, none: every level). Regions carry RegionBehaviors; a
//     module's behavior type is the data model registered in CONFIG.RegionBehavior.dataModels
//     (a foundry.data.regionBehaviors.RegionBehaviorType with `static events`). A behavior
//     listening to TOKEN_MOVE_IN makes core split a movement where it enters the region (a
//     checkpoint at the first grid step inside, on a level the region lies on), and after that
//     leg the behavior's handler gets {name: "tokenMoveIn", data: {token, movement}, region,
//     user} on every client (REGION_EVENTS, RegionTokenMoveEventData). Active Effects carry the
//     v14 duration {value, units, expiry, expired} (EffectDurationData); at each turn change the
//     ActiveEffectRegistry expires those whose rounds have passed when their expiry event comes
//     (turnStart of their actor's token, turnEnd, roundEnd), doing CONFIG.ActiveEffect.
//     expiryAction: "update" (marks `duration.expired`, the default) or "delete".
// From v13: CONFIG.queries and User#query(name, data, {timeout}). The queried user's handler
// runs on that user's client; here this page plays that client (its DialogV2 is recorded in
// `dialogs`, where a test clicks or closes it); the query rejects after `timeout` ms.
// Languages: boot() loads the files module.json lists under "languages", as Foundry does, and
// game.i18n localises from them.
//
// Animations take no time here. An update with the stand-in's own option `stubUser: <user id>`
// is one another client made, as this client receives it: its pre-hooks ran there (not here),
// the hooks here get that user, and that client goes on with a pending movement. Plain ES
// module with no Node imports: the Node tests and the Chromium page both load it.

/** @typedef {Record<string, any>} Data */
/** @template S, F @template {PropertyKey} [P=never] @typedef {import("../types/stand-in").StandIn<S, F, P>} StandIn */
/** @typedef {import("../types/stand-in").Foundry} Foundry */
/** @typedef {import("../types/stand-in").Protected} Protected */
/** @typedef {(...args: any[]) => any} Fn */

/** @type {Data[]} every call the module made, in order */
export const calls = [];
/** @type {{level: string, text: string}[]} the notifications shown */
export const notes = [];
/** @type {{title: string, content: string, buttons: string[], default: string | undefined, click: (action: string) => void, close: () => void, closed: boolean}[]} */
export const dialogs = [];

/** @template T @param {T} v @returns {T} */
function clone(v) {
  return v === undefined ? v : JSON.parse(JSON.stringify(v, (_, x) => (x instanceof Set ? [...x] : x)));
}

/** A record of an update's options: the movement data is Foundry's own, left out.
 * @param {Data} options */
function optionsRecord(options) {
  const { _movement, movement, _movementArguments, ...rest } = options ?? {};
  return clone(rest);
}

/** @param {unknown} a @param {unknown} b */
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

let idCounter = 0;
function randomID() {
  idCounter += 1;
  return `stub${String(idCounter).padStart(12, "0")}`;
}

function generation() {
  return Number(game.release.generation);
}

// -- Hooks ----------------------------------------------------------------------------------------

/** @type {Map<string, {fn: Fn, once: boolean}[]>} */
const hookEvents = new Map();

/** @param {string} name @param {unknown[]} args @param {boolean} stopOnFalse */
function runHooks(name, args, stopOnFalse) {
  const list = [...(hookEvents.get(name) ?? [])];
  for (const h of list) {
    if (h.once) Hooks.off(name, h.fn);
    const r = h.fn(...args);
    if (stopOnFalse && r === false) return false;
  }
  return true;
}

export const Hooks = {
  /** @param {string} name @param {Fn} fn @param {{once?: boolean}} [options] */
  on(name, fn, { once = false } = {}) {
    if (!hookEvents.has(name)) hookEvents.set(name, []);
    hookEvents.get(name)?.push({ fn, once });
    return hookEvents.get(name)?.length ?? 0;
  },
  /** @param {string} name @param {Fn} fn */
  once(name, fn) {
    return this.on(name, fn, { once: true });
  },
  /** @param {string} name @param {Fn | number} fn */
  off(name, fn) {
    const list = hookEvents.get(name) ?? [];
    hookEvents.set(name, list.filter((h) => h.fn !== fn));
  },
  /** Foundry's Hooks.call: stops at the first `false` and returns false.
   * @param {string} name @param {...any} args */
  call(name, ...args) {
    return runHooks(name, args, true);
  },
  /** @param {string} name @param {...any} args */
  callAll(name, ...args) {
    runHooks(name, args, false);
    return true;
  },
};

// -- collections and documents --------------------------------------------------------------------

/** @template V @extends {Map<string, V>} */
export class Collection extends Map {
  get contents() {
    return [...this.values()];
  }
  /** @param {(v: V) => unknown} fn */
  find(fn) {
    return this.contents.find(fn);
  }
  /** @param {(v: V) => unknown} fn */
  filter(fn) {
    return this.contents.filter(fn);
  }
  /** @template R @param {(v: V) => R} fn */
  map(fn) {
    return this.contents.map(fn);
  }
  /** @param {(v: V) => unknown} fn */
  some(fn) {
    return this.contents.some(fn);
  }
}
// Foundry's collections iterate their values, not [key, value] pairs
Object.defineProperty(Collection.prototype, Symbol.iterator, { value: Collection.prototype.values });

/** @param {Data} target @param {Data} changes */
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

/** foundry.utils.expandObject: `{"system.hp.value": 3}` -> `{system: {hp: {value: 3}}}`.
 * @param {Data} changes */
function expand(changes) {
  const out = {};
  for (const [k, v] of Object.entries(changes ?? {})) merge(out, { [k]: v });
  return out;
}

/** The differential Foundry's update hooks receive: only keys whose value changes.
 * @param {Data} source @param {Data} changes @returns {Data} */
function diff(source, changes) {
  /** @type {Data} */
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

/** @type {Record<string, {fields: string[], defaults: Data}>} each document class's schema */
const SCHEMAS = {};

/** @param {string} name @param {string[]} fields @param {Data} [defaults] */
function schema(name, fields, defaults = {}) {
  SCHEMAS[name] = { fields, defaults };
}

export class Document {
  /** @param {Data} [data] @param {Document | null} [parent] */
  constructor(data = {}, parent = null) {
    const s = SCHEMAS[this.documentName] ?? { fields: [], defaults: {} };
    this._source = clone({ ...s.defaults, _id: data._id ?? randomID(), flags: {}, ...data });
    /** @type {any} */
    this.parent = parent;
    for (const f of s.fields) {
      if (!(f in this._source)) this._source[f] = null;
    }
  }
  /** @type {Data} */
  #data = {};
  /** The document's source data. @returns {Data} */
  get _source() {
    return this.#data;
  }
  set _source(data) {
    this.#data = data;
  }
  /** @returns {string} */
  get documentName() {
    return "Document";
  }
  get id() {
    return /** @type {string} */ (this._source._id);
  }
  get _id() {
    return /** @type {string} */ (this._source._id);
  }
  get flags() {
    return this._source.flags;
  }
  /** @returns {string} */
  get uuid() {
    return this.parent ? `${this.parent.uuid}.${this.documentName}.${this.id}` : `${this.documentName}.${this.id}`;
  }
  /** @param {string} scope @param {string} key */
  getFlag(scope, key) {
    return this._source.flags?.[scope]?.[key];
  }
  /** @returns {Data} */
  toObject() {
    return clone(this._source);
  }
  /** update(changes, options): pre-hook (false cancels), differential, hook; recorded.
   * @param {Data} changes @param {Data} [options] @returns {Promise<any>} */
  async update(changes, options = {}) {
    const userId = game.user?.id;
    /** @type {Data} */
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
  /** @param {Data} [options] @returns {Promise<any>} */
  async delete(options = {}) {
    calls.push({ op: `${this.documentName}.delete`, id: this.id, options: clone(options) });
    /** @type {{collection?: Collection<unknown>}} */ (this).collection?.delete(this.id);
    Hooks.callAll(`delete${this.documentName}`, this, options, game.user?.id);
    return this;
  }
  /** Document.implementation: the configured class of this document type. */
  static get implementation() {
    return this;
  }
}

/** CONFIG.Token.movement.actions (v13): how each movement action is drawn and measured. */
export const MOVEMENT_ACTIONS = {
  walk: { label: "Walk", visualize: true, teleport: false, measure: true },
  climb: { label: "Climb", visualize: true, teleport: false, measure: true },
  crawl: { label: "Crawl", visualize: true, teleport: false, measure: true },
  fly: { label: "Fly", visualize: true, teleport: false, measure: true },
  jump: { label: "Jump", visualize: true, teleport: false, measure: true },
  swim: { label: "Swim", visualize: true, teleport: false, measure: true },
  blink: { label: "Blink", visualize: false, teleport: true, measure: true },
  displace: { label: "Displace", visualize: false, teleport: true, measure: false },
};

/** The position keys of a movement (v14 adds the level). */
function movementKeys() {
  return generation() >= 14 ? ["x", "y", "elevation", "width", "height", "shape", "level"] : ["x", "y", "elevation", "width", "height", "shape"];
}

/** @param {{id?: string | null} | null | undefined} user */
function isSelf(user) {
  return Boolean(user) && user?.id === game.user?.id;
}

/** @param {Document} doc */
function gridOf(doc) {
  const g = doc.parent?._source.grid;
  return { size: g?.size ?? 100, distance: g?.distance ?? 5 };
}

/** Grid steps from cell a to cell b (BaseGrid#getDirectPath on a square grid).
 * @param {number[]} a @param {number[]} b */
function directPath(a, b) {
  let [x0, y0] = a;
  const [x1, y1] = b;
  const out = [[x0, y0]];
  while (x0 !== x1 || y0 !== y1) {
    x0 += Math.sign(x1 - x0);
    y0 += Math.sign(y1 - y0);
    out.push([x0, y0]);
  }
  return out;
}

/** @param {Data} w @param {Data} source @param {number} size @returns {[number, number]} */
function cellAt(w, source, size) {
  const width = w.width ?? source.width ?? 1;
  const height = w.height ?? source.height ?? 1;
  return [Math.floor((w.x + (width * size) / 2) / size), Math.floor((w.y + (height * size) / 2) / size)];
}

const EMPTY_SECTION = { waypoints: [], distance: 0, cost: 0, spaces: 0, diagonals: 0 };

schema("Token", ["name", "actorId", "actorLink", "x", "y", "elevation", "width", "height", "disposition", "hidden", "delta", "level"], {
  actorLink: false, x: 0, y: 0, elevation: 0, width: 1, height: 1, disposition: 0, hidden: false, delta: {},
});

export class TokenDocument extends Document {
  /** @type {Data | null} the current or last movement */
  #movement = null;
  /** @type {Map<unknown, {movementId: string, resolve: (v: boolean) => void}>} pause keys */
  #handles = new Map();
  /** @type {TokenActor | null} */
  #synthetic = null;

  get documentName() {
    return "Token";
  }
  get name() { return this._source.name; }
  get actorId() { return this._source.actorId; }
  get actorLink() { return this._source.actorLink; }
  get x() { return this._source.x; }
  get y() { return this._source.y; }
  get elevation() { return this._source.elevation; }
  get width() { return this._source.width; }
  get height() { return this._source.height; }
  get disposition() { return this._source.disposition; }
  get hidden() { return this._source.hidden; }
  get delta() { return this._source.delta; }
  /** v14: the level it stands on. */
  get level() { return this._source.level ?? null; }

  /** The world actor when linked; else the synthetic actor: the base actor with the token's
   * delta over it, whose updates go into the delta (v11+ ActorDelta). */
  get actor() {
    if (this.actorLink) return game.actors.get(this.actorId) ?? null;
    if (!game.actors.get(this.actorId)) return null;
    this.#synthetic ??= new TokenActor(this);
    return this.#synthetic;
  }
  get collection() {
    return this.parent?.tokens;
  }

  // -- v13 movement ---------------------------------------------------------------------------
  get movementAction() {
    return this._source.movementAction ?? "walk";
  }
  /** TokenDocument#movement: the current or last movement (an idle one before any). */
  get movement() {
    if (this.#movement) return this.#movement;
    const origin = this.#position();
    return { id: "", chain: [], origin, destination: origin, passed: EMPTY_SECTION, pending: EMPTY_SECTION, method: "api", user: game.user, state: "completed", updateOptions: {} };
  }
  /** @param {Data} [w] */
  #position(w = this._source) {
    const p = { x: w.x, y: w.y, elevation: w.elevation ?? 0, width: w.width ?? 1, height: w.height ?? 1, shape: w.shape ?? 4 };
    return generation() >= 14 ? { ...p, level: w.level ?? null } : p;
  }
  /** TokenDocument#getCompleteMovementPath: the waypoints with the grid steps between them.
   * @param {Data[]} waypoints @returns {Data[]} */
  getCompleteMovementPath(waypoints) {
    const { size } = gridOf(this);
    /** @type {Data[]} */
    const path = [];
    /** @type {any} */
    let previous = null;
    for (const w of waypoints) {
      const action = w.action ?? previous?.action ?? this.movementAction;
      if (previous && !(/** @type {Data} */ (MOVEMENT_ACTIONS)[action]?.teleport)) {
        const steps = directPath(cellAt(previous, this._source, size), cellAt(w, this._source, size));
        for (const [cx, cy] of steps.slice(1, -1)) {
          const width = w.width ?? this._source.width ?? 1;
          const height = w.height ?? this._source.height ?? 1;
          const x = Math.round((cx + 0.5) * size - (width * size) / 2);
          const y = Math.round((cy + 0.5) * size - (height * size) / 2);
          path.push({ ...this.#position({ ...w, x, y }), action, snapped: true, explicit: false, checkpoint: false, intermediate: true });
        }
      }
      path.push({ ...this.#position(w), action, snapped: w.snapped ?? false, explicit: w.explicit ?? false, checkpoint: w.checkpoint ?? false, intermediate: w.intermediate ?? false });
      previous = w;
    }
    return path;
  }
  /** TokenDocument#measureMovementPath: the distance along waypoints (a step counts one cell).
   * @param {Data[]} waypoints */
  measureMovementPath(waypoints) {
    const { size, distance } = gridOf(this);
    let total = 0;
    for (let i = 1; i < waypoints.length; i++) {
      const a = cellAt(waypoints[i - 1], this._source, size);
      const b = cellAt(waypoints[i], this._source, size);
      total += Math.max(Math.abs(b[0] - a[0]), Math.abs(b[1] - a[1])) * distance;
    }
    return { distance: total, cost: total, spaces: total / distance, diagonals: 0 };
  }
  /** TokenDocument#getOccupiedGridSpaceOffsets: the grid spaces a token covers there.
   * @param {Data} [w] */
  getOccupiedGridSpaceOffsets(w = this._source) {
    const { size } = gridOf(this);
    const out = [];
    const i0 = Math.round(w.y / size);
    const j0 = Math.round(w.x / size);
    for (let di = 0; di < Math.ceil(w.height ?? this._source.height ?? 1); di++) {
      for (let dj = 0; dj < Math.ceil(w.width ?? this._source.width ?? 1); dj++) out.push({ i: i0 + di, j: j0 + dj });
    }
    return out;
  }
  /** TokenDocument#move(waypoints, options).
   * @param {Data[] | Data} waypoints @param {Data} [options] */
  async move(waypoints, { method, constrainOptions, autoRotate, showRuler, ...options } = {}) {
    if (!Array.isArray(waypoints)) waypoints = [waypoints];
    if (!waypoints.length) return false;
    const args = { result: false };
    calls.push({ op: "Token.move", id: this.id, waypoints: clone(waypoints), method, options: clone(options) });
    const updated = await this.update({}, { ...options, movement: { [this.id]: { waypoints, method, constrainOptions, autoRotate, showRuler } }, _movementArguments: args });
    return args.result && Boolean(updated);
  }
  /** The movement of an update (#preUpdateMovement): waypoints cleaned, split at the first
   * checkpoint (v14: also where it enters a region whose behavior listens to tokens moving in),
   * measured; null when the update moves nothing.
   * @param {Data} changed @param {Data} options @returns {Data | null} */
  #planMovement(changed, options) {
    const keys = movementKeys();
    const spec = options.movement?.[this.id] ?? {};
    /** @type {Data[] | null} */
    let waypoints = spec.waypoints?.length ? spec.waypoints : null;
    if (!waypoints && keys.some((k) => k in changed)) {
      waypoints = [{ ...Object.fromEntries(keys.filter((k) => k in changed).map((k) => [k, changed[k]])), checkpoint: true }];
    }
    if (!waypoints) return null;
    const origin = this.#position();
    /** @type {Data} */
    let previous = { ...origin, action: this.movementAction };
    const clean = waypoints.map((w) => {
      const c = {
        ...this.#position({ ...previous, ...Object.fromEntries(keys.filter((k) => w[k] !== undefined).map((k) => [k, w[k]])) }),
        action: w.action ?? previous.action,
        snapped: w.snapped ?? false,
        explicit: w.explicit ?? false,
        checkpoint: w.checkpoint ?? false,
      };
      if (!(c.action in MOVEMENT_ACTIONS)) throw new Error("action is invalid");
      c.x = Math.round(c.x);
      c.y = Math.round(c.y);
      previous = c;
      return c;
    });
    const entered = generation() >= 14 ? this.#splitAtRegions(origin, clean) : [];
    const passed = [];
    const pending = [];
    let split = false;
    for (const w of clean) {
      if (split) pending.push(w);
      else {
        passed.push(w);
        split = w.checkpoint;
      }
    }
    passed[passed.length - 1].checkpoint = true;
    const destination = this.#position(passed[passed.length - 1]);
    const passedPath = this.getCompleteMovementPath([origin, ...passed]).slice(1);
    const pendingPath = this.getCompleteMovementPath([destination, ...pending]).slice(1);
    return {
      id: randomID(),
      chain: options._movementArguments?.chain ?? [],
      origin,
      destination,
      passed: { waypoints: passedPath, ...this.measureMovementPath([origin, ...passed]) },
      pending: { waypoints: pendingPath, ...this.measureMovementPath([destination, ...pending]) },
      constrained: false,
      recorded: false,
      method: spec.method ?? (options.isUndo ? "undo" : "api"),
      constrainOptions: spec.constrainOptions ?? {},
      autoRotate: Boolean(spec.autoRotate),
      showRuler: Boolean(spec.showRuler),
      regions: entered.filter((r) => regionContains(r, destination)),
    };
  }
  /** v14 core: a checkpoint where the path first enters a region with a TOKEN_MOVE_IN behavior
   * (the first grid step inside, on one of its levels), before the path's first checkpoint.
   * Changes `clean` in place; returns the regions with such behaviors.
   * @param {Data} origin @param {Data[]} clean @returns {RegionDocument[]} */
  #splitAtRegions(origin, clean) {
    const scene = this.parent;
    const listening = (scene?.regions?.contents ?? []).filter((/** @type {RegionDocument} */ r) => regionListens(r, CONST.REGION_EVENTS.TOKEN_MOVE_IN));
    if (!listening.length) return [];
    let at = origin;
    for (let k = 0; k < clean.length; k++) {
      const steps = this.getCompleteMovementPath([at, clean[k]]).slice(1);
      for (const [s, step] of steps.entries()) {
        const into = listening.some((/** @type {RegionDocument} */ r) => regionContains(r, step) && !regionContains(r, s === 0 ? at : steps[s - 1]));
        if (!into) continue;
        if (s === steps.length - 1) clean[k].checkpoint = true;
        else clean.splice(k, 0, { ...step, intermediate: false, explicit: false, snapped: true, checkpoint: true });
        return listening;
      }
      if (clean[k].checkpoint) break;
      at = clean[k];
    }
    return listening;
  }
  /** update(changes, options), v13+: a movement first (preMoveToken), then preUpdateToken, the
   * change, updateToken, moveToken, v14 region events, and the mover's client continues a
   * pending movement.
   * @param {Data} changes @param {Data} [options] */
  async update(changes, options = {}) {
    if (!(generation() >= 13)) return super.update(changes, options);
    const remote = options.stubUser ?? null; // made on another client: its pre-hooks ran there
    const userId = remote ?? game.user?.id;
    /** @type {Data} */
    const record = { op: "Token.update", id: this.id, changes: clone(changes), options: optionsRecord(options) };
    calls.push(record);
    if (options._pauseMovement || options._resumeMovement || options._stopMovement) return this; // to the other clients
    let changed = diff(this._source, expand(changes));
    let move = this.#planMovement(changed, options);
    if (move) {
      for (const k of movementKeys()) delete changed[k];
      const allowed = options.noHook || remote !== null || Hooks.call("preMoveToken", this, move, options) !== false;
      if (allowed) {
        const d = move.destination;
        Object.assign(changed, { x: d.x, y: d.y, elevation: d.elevation, ...(generation() >= 14 ? { level: d.level } : {}) });
        options._movement = { [this.id]: move };
        options.diff = false; // a movement goes through even when it ends where it began
        if (options._movementArguments) options._movementArguments.result = true;
      } else {
        record.rejected = true;
        move = null;
      }
    }
    delete options.movement;
    delete options._movementArguments;
    if (remote === null && Hooks.call("preUpdateToken", this, changed, options, userId) === false) {
      record.cancelled = true;
      return undefined;
    }
    const real = diff(this._source, changed);
    if (move) Object.assign(real, { x: changed.x, y: changed.y });
    if (!Object.keys(real).length) return this;
    merge(this._source, real);
    const user = game.users.get(userId);
    if (move) this.#startMovement(move, user, options);
    Hooks.callAll("updateToken", this, { _id: this.id, ...real }, options, userId);
    if (move) {
      const { regions, ...movement } = move;
      Hooks.callAll("moveToken", this, movement, options, user);
      for (const region of regions ?? []) regionEvent(region, { name: CONST.REGION_EVENTS.TOKEN_MOVE_IN, data: { token: this, movement }, region, user });
      // the mover's client goes on (here, or the other client this update came from)
      if ((isSelf(user) || remote !== null) && this.#movement?.state === "pending") setTimeout(() => this.#continueMovement(move.id, remote), 0);
    }
    return this;
  }
  /** @param {Data} move @param {User | undefined} user @param {Data} options */
  #startMovement(move, user, options) {
    const current = this.#movement;
    if (current && current.id !== move.chain[move.chain.length - 1]) this.#stopHere();
    const { animate, animation, diff: d, noHook, pan, render } = options;
    const state = move.pending.waypoints.length ? "pending" : "completed";
    const { regions, ...data } = move;
    this.#movement = Object.freeze({ ...data, user, state, updateOptions: clone({ animate, animation, diff: d, noHook, pan, render }) ?? {} });
  }
  /** @param {string} state @param {Data} [extra] */
  #setMovementState(state, extra = {}) {
    this.#movement = Object.freeze({ ...this.#movement, ...extra, state });
  }
  /** The mover goes on with the pending waypoints, as its own update (#continueMovement).
   * @param {string} movementId @param {string | null} [remote] */
  async #continueMovement(movementId, remote = null) {
    const m = this.#movement;
    if (!m || m.id !== movementId || m.state !== "pending") return false;
    const waypoints = m.pending.waypoints.filter((/** @type {Data} */ w) => !w.intermediate);
    const args = { result: false, chain: [...m.chain, m.id] };
    const options = { ...clone(m.updateOptions), ...(remote === null ? {} : { stubUser: remote }), movement: { [this.id]: { waypoints, method: m.method, constrainOptions: m.constrainOptions, autoRotate: m.autoRotate, showRuler: m.showRuler } }, _movementArguments: args };
    const updated = await this.update({}, options);
    return args.result && Boolean(updated);
  }
  /** TokenDocument#pauseMovement(key): the mover's client, while a movement is pending.
   * @param {string} [key] */
  pauseMovement(key) {
    const m = this.movement;
    if (!isSelf(m.user)) throw new Error("Only the User that initiated the movement can pause it.");
    if (m.state !== "paused") {
      if (m.state !== "pending") return null;
      this.#setMovementState("paused");
      calls.push({ op: "Token.pauseMovement", id: this.id, movementId: m.id, key });
      Hooks.callAll("pauseToken", this);
    }
    if (this.#handles.has(key)) throw new Error(`TokenDocument#pauseMovement was already called with key "${key}" for the current movement`);
    /** @type {(v: boolean) => void} */
    let resolve = () => {};
    /** @type {Promise<boolean>} */
    const promise = new Promise((r) => (resolve = r));
    this.#handles.set(key ?? Symbol(""), { movementId: m.id, resolve });
    return key === undefined ? async () => this.resumeMovement(m.id, undefined) : promise;
  }
  /** TokenDocument#resumeMovement(movementId, key): on the mover's client it resumes once every
   * key that paused it came back; from another client it is sent to the mover.
   * @param {string} movementId @param {string} [key] */
  resumeMovement(movementId, key) {
    if (!isSelf(this.movement.user)) {
      calls.push({ op: "Token.update", id: this.id, changes: {}, options: { diff: false, noHook: true, _resumeMovement: [movementId, key] } });
      return;
    }
    calls.push({ op: "Token.resumeMovement", id: this.id, movementId, key });
    const handle = this.#handles.get(key);
    if (!handle || handle.movementId !== movementId) return;
    this.#handles.delete(key);
    if ([...this.#handles.values()].some((h) => h.movementId === movementId)) return;
    const m = this.#movement;
    if (!m || m.id !== movementId || m.state !== "paused") {
      handle.resolve(false);
      return;
    }
    this.#setMovementState("pending");
    setTimeout(async () => handle.resolve(await this.#continueMovement(movementId)), 0);
  }
  /** TokenDocument#stopMovement(): the mover's client only. */
  stopMovement() {
    if (!isSelf(this.movement.user)) throw new Error("Only the User that initiated the movement can stop it.");
    calls.push({ op: "Token.stopMovement", id: this.id, movementId: this.movement.id });
    return this.#stopHere();
  }
  #stopHere() {
    const m = this.#movement;
    if (!m || m.state === "stopped") return Boolean(m);
    if (m.state === "completed") return false;
    this.#setMovementState("stopped", { pending: EMPTY_SECTION });
    for (const [k, h] of this.#handles) {
      if (h.movementId === m.id) {
        this.#handles.delete(k);
        h.resolve(false);
      }
    }
    Hooks.callAll("stopToken", this);
    return true;
  }

  /** v11: TokenDocument#toggleActiveEffect(effectData, {overlay, active}) (v12 has
   * Actor#toggleStatusEffect instead). */
  get toggleActiveEffect() {
    if (generation() >= 12) return undefined;
    return async (/** @type {Data} */ effectData, { active = undefined } = {}) => {
      calls.push({ op: "Token.toggleActiveEffect", id: this.id, statusId: effectData?.id, active });
      return toggleStatus(this.actor, effectData?.id, active);
    };
  }
}

// -- regions (v12+; behaviors and levels as v14 has them) ------------------------------------------

schema("RegionBehavior", ["name", "type", "system", "disabled"], { disabled: false, system: {} });

export class RegionBehavior extends Document {
  /** @param {Data} data @param {RegionDocument} region */
  constructor(data, region) {
    const { system = {}, ...rest } = data;
    super(rest, region);
    const Model = config.RegionBehavior?.dataModels?.[rest.type];
    /** @type {any} the behavior type's data model */
    this.system = Model ? new Model(system, { parent: this }) : system;
  }
  get documentName() {
    return "RegionBehavior";
  }
  get name() { return this._source.name; }
  get type() { return this._source.type; }
  get disabled() { return this._source.disabled; }
  get region() {
    return this.parent;
  }
  /** RegionBehavior#hasEvent: the behavior type listens to `name`.
   * @param {string} name */
  hasEvent(name) {
    return !this.disabled && Boolean(this.system?.constructor?.events?.[name]);
  }
}

schema("Region", ["name", "shapes", "levels", "visibility"], { shapes: [], levels: null, visibility: 0 });

export class RegionDocument extends Document {
  /** @param {Data} data @param {Scene} scene */
  constructor(data, scene) {
    const { behaviors = [], ...rest } = data;
    super(rest, scene);
    /** @type {Collection<RegionBehavior>} */
    this.behaviors = new Collection();
    for (const b of behaviors) {
      const doc = new RegionBehavior(b, this);
      this.behaviors.set(doc.id, doc);
    }
  }
  get documentName() {
    return "Region";
  }
  get name() { return this._source.name; }
  get shapes() { return this._source.shapes; }
  /** v14: the levels it lies on (none: every level). */
  get levels() { return this._source.levels ?? null; }
  get collection() {
    return this.parent?.regions;
  }
  toObject() {
    return { ...clone(this._source), behaviors: this.behaviors.map((b) => b.toObject()) };
  }
}

/** Is a token at `w` (top-left px, its level) inside `region`? Its centre in a rectangle
 * shape, on a level the region lies on. @param {RegionDocument} region @param {Data} w */
function regionContains(region, w) {
  const levels = region.levels;
  if (levels?.length && !levels.includes(w.level ?? null)) return false;
  const size = gridOf(region).size;
  const cx = w.x + ((w.width ?? 1) * size) / 2;
  const cy = w.y + ((w.height ?? 1) * size) / 2;
  return (region.shapes ?? []).some((/** @type {Data} */ s) => s.type === "rectangle" && !s.hole && cx >= s.x && cx < s.x + s.width && cy >= s.y && cy < s.y + s.height);
}

/** Does one of the region's behaviors listen to `name`? @param {RegionDocument} region @param {string} name */
function regionListens(region, name) {
  return region.behaviors.some((b) => b.hasEvent(name));
}

/** A region event on every client: each listening behavior's type handles it.
 * @param {RegionDocument} region @param {Data} event */
function regionEvent(region, event) {
  for (const b of region.behaviors.values()) if (b.hasEvent(event.name)) b.system._handleRegionEvent(event);
}

/** foundry.data.regionBehaviors.RegionBehaviorType: the base of a behavior type's data model. */
export class RegionBehaviorType {
  /** @param {Data} [data] @param {{parent?: RegionBehavior}} [options] */
  constructor(data = {}, { parent } = {}) {
    Object.assign(this, data);
    /** @type {RegionBehavior | null} */
    this.parent = parent ?? null;
  }
  /** @type {Record<string, Fn>} */
  static events = {};
  static defineSchema() {
    return {};
  }
  get behavior() {
    return this.parent;
  }
  get region() {
    return this.parent?.region ?? null;
  }
  get scene() {
    return this.region?.parent ?? null;
  }
  /** Calls the type's handler of `event.name` with the behavior's data model as `this`.
   * @param {Data} event */
  async _handleRegionEvent(event) {
    const ctor = /** @type {typeof RegionBehaviorType} */ (this.constructor);
    await ctor.events[event.name]?.call(this, event);
  }
}

// -- scenes ---------------------------------------------------------------------------------------

schema("Scene", ["name", "active", "grid", "dimensions"]);

export class Scene extends Document {
  /** @param {Data} [data] */
  constructor(data = {}) {
    const { tokens = [], regions = [], ...rest } = data;
    super({ grid: { type: 1, size: 100, distance: 5, units: "ft" }, active: true, ...rest });
    /** @type {Collection<TokenDocument>} */
    this.tokens = new Collection(tokens.map((/** @type {Data} */ t) => [t._id, new TokenDocument(t, this)]));
    /** @type {Collection<RegionDocument>} */
    this.regions = new Collection(regions.map((/** @type {Data} */ r) => [r._id, new RegionDocument(r, this)]));
  }
  get documentName() {
    return "Scene";
  }
  get name() { return this._source.name; }
  get active() { return this._source.active; }
  get grid() { return this._source.grid; }
  get dimensions() { return this._source.dimensions; }
  toObject() {
    return { ...clone(this._source), tokens: this.tokens.map((t) => t.toObject()), regions: this.regions.map((r) => r.toObject()) };
  }
  /** Scene#createEmbeddedDocuments: here Regions (with their behaviors).
   * @param {string} type @param {Data[]} datas @param {Data} [options] */
  async createEmbeddedDocuments(type, datas, options = {}) {
    if (type !== "Region") throw new Error(`the stand-in makes no ${type} in a scene`);
    calls.push({ op: "Region.create", parent: this.id, data: clone(datas), options: clone(options) });
    const made = datas.map((d) => new RegionDocument(d, this));
    for (const r of made) {
      this.regions.set(r.id, r);
      Hooks.callAll("createRegion", r, options, game.user?.id);
    }
    return made;
  }
  /** @param {string} type @param {string[]} ids @param {Data} [options] */
  async deleteEmbeddedDocuments(type, ids, options = {}) {
    if (type !== "Region") throw new Error(`the stand-in deletes no ${type} in a scene`);
    calls.push({ op: "Region.delete", parent: this.id, ids: [...ids], options: clone(options) });
    const gone = ids.map((id) => this.regions.get(id)).filter((r) => r !== undefined);
    for (const r of gone) {
      this.regions.delete(r.id);
      Hooks.callAll("deleteRegion", r, options, game.user?.id);
    }
    return gone;
  }
}

// -- actors and effects ---------------------------------------------------------------------------

/** The core status effects (v12-v13: an array; ids the module does not register itself). */
export const CORE_STATUSES = [
  { id: "dead", name: "EFFECT.StatusDead", img: "icons/svg/skull.svg" },
  { id: "unconscious", name: "EFFECT.StatusUnconscious", img: "icons/svg/unconscious.svg" },
  { id: "prone", name: "EFFECT.StatusProne", img: "icons/svg/falling.svg" },
];

/** Where an effect started in the combat (the registry counts its rounds from there).
 * @type {WeakMap<ActiveEffect, {round: number}>} */
const effectStarts = new WeakMap();

schema("ActiveEffect", ["name", "img", "statuses", "duration", "disabled", "origin"], { statuses: [], disabled: false, duration: {} });

export class ActiveEffect extends Document {
  get documentName() {
    return "ActiveEffect";
  }
  get name() { return this._source.name; }
  get img() { return this._source.img; }
  get disabled() { return this._source.disabled; }
  get statuses() {
    return new Set(/** @type {string[]} */ (this._source.statuses ?? []));
  }
  /** v14: {value, units, expiry, expired}. */
  get duration() {
    return { value: null, units: "rounds", expiry: null, expired: false, ...this._source.duration };
  }
  get collection() {
    return this.parent?.effects;
  }
}

/** @param {any} actor @param {string} statusId @param {boolean | undefined} active */
function toggleStatus(actor, statusId, active) {
  const known = (/** @type {Data[]} */ (config.statusEffects) ?? []).some((e) => e.id === statusId);
  if (!known) throw new Error(`Invalid status ID "${statusId}" provided to Actor#toggleStatusEffect`);
  const on = active ?? !actor.statuses.has(statusId);
  const existing = actor.effects.filter((/** @type {ActiveEffect} */ e) => e.statuses.has(statusId));
  if (on && !existing.length) {
    const effect = new ActiveEffect({ name: statusId, statuses: [statusId] }, actor);
    actor.effects.set(effect.id, effect);
  } else if (!on) {
    for (const e of existing) actor.effects.delete(e.id);
  }
  return on;
}

schema("Actor", ["name", "type", "system", "ownership"]);

export class Actor extends Document {
  /** @param {Data} [data] @param {Document | null} [parent] */
  constructor(data = {}, parent = null) {
    super(data, parent);
    /** @type {Collection<ActiveEffect>} */
    this.effects = new Collection();
  }
  get documentName() {
    return "Actor";
  }
  get name() { return this._source.name; }
  get type() { return this._source.type; }
  get system() { return this._source.system; }
  get ownership() { return this._source.ownership; }
  /** v12+: the status ids of the actor's active effects. */
  get statuses() {
    const out = new Set();
    for (const e of this.effects.values()) if (!e.disabled && !e.duration.expired) for (const s of e.statuses) out.add(s);
    return out;
  }
  get isToken() {
    return false;
  }
  /** v12+: Actor#toggleStatusEffect(statusId, {active, overlay}); absent before v12. */
  get toggleStatusEffect() {
    if (generation() < 12) return undefined;
    return async (/** @type {string} */ statusId, { active = undefined } = {}) => {
      calls.push({ op: "Actor.toggleStatusEffect", uuid: this.uuid, statusId, active });
      return toggleStatus(this, statusId, active);
    };
  }
  /** Actor#createEmbeddedDocuments: here ActiveEffects.
   * @param {string} type @param {Data[]} datas @param {Data} [options] */
  async createEmbeddedDocuments(type, datas, options = {}) {
    if (type !== "ActiveEffect") throw new Error(`the stand-in makes no ${type} in an actor`);
    calls.push({ op: "ActiveEffect.create", parent: this.uuid, data: clone(datas), options: clone(options) });
    const made = datas.map((d) => new ActiveEffect({ ...d, duration: d.duration ? { ...d.duration, expired: false } : {} }, this));
    for (const e of made) {
      this.effects.set(e.id, e);
      effectStarts.set(e, { round: game.combat?.round ?? 0 });
      Hooks.callAll("createActiveEffect", e, options, game.user?.id);
    }
    return made;
  }
}

/** An unlinked token's synthetic actor: reads the base actor under the token's delta; its
 * updates change the delta and fire updateActor (its uuid names the token). */
export class TokenActor extends Actor {
  /** @param {TokenDocument} token */
  constructor(token) {
    super({ _id: token.actorId }, token);
    /** @type {TokenDocument} */
    this.token = token;
  }
  /** @returns {Data} */
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
  /** @param {Data} changes @param {Data} [options] */
  async update(changes, options = {}) {
    calls.push({ op: "Actor.update", id: this.id, uuid: this.uuid, changes: clone(changes), options: clone(options) });
    const changed = diff(this._source, expand(changes));
    if (Hooks.call("preUpdateActor", this, changed, options, game.user?.id) === false) return undefined;
    if (!Object.keys(changed).length) return this;
    this.token._source.delta ??= {};
    merge(this.token._source.delta, changed);
    Hooks.callAll("updateActor", this, { _id: this.id, ...changed }, options, game.user?.id);
    return this;
  }
}

/** v14 ActiveEffectRegistry at a turn change: the effects whose rounds have passed expire when
 * their expiry event comes (turnStart / turnEnd of their actor's token, roundEnd), by
 * CONFIG.ActiveEffect.expiryAction ("update": marked expired; "delete").
 * @param {Combat} combat @param {{round: number, tokenId: string | null}} before */
async function expireEffects(combat, before) {
  if (generation() < 14) return;
  const action = config.ActiveEffect?.expiryAction ?? "update";
  const now = combat.combatant?.tokenId ?? null;
  const newRound = combat.round > before.round;
  const scene = game.scenes.get(combat._source.scene);
  for (const token of scene?.tokens ?? []) {
    const actor = token.actor;
    for (const effect of [...(actor?.effects ?? [])]) {
      const d = effect.duration;
      const start = effectStarts.get(effect);
      if (!start || d.expired || d.units !== "rounds" || d.value == null) continue;
      const due = combat.round >= start.round + d.value;
      const event =
        (d.expiry === "turnStart" && now === token.id) ||
        (d.expiry === "turnEnd" && before.tokenId === token.id) ||
        (d.expiry === "roundEnd" && newRound);
      if (!due || !event) continue;
      if (action === "delete") await effect.delete({});
      else if (action === "update") await effect.update({ "duration.expired": true });
    }
  }
}

// -- combats --------------------------------------------------------------------------------------

schema("Combatant", ["tokenId", "actorId", "sceneId", "name", "initiative", "hidden", "defeated"], { name: "", initiative: null, hidden: false, defeated: false });

export class Combatant extends Document {
  get documentName() {
    return "Combatant";
  }
  get tokenId() { return this._source.tokenId; }
  get actorId() { return this._source.actorId; }
  get sceneId() { return this._source.sceneId; }
  get name() { return this._source.name; }
  get initiative() { return this._source.initiative; }
  get hidden() { return this._source.hidden; }
  get defeated() { return this._source.defeated; }
  get collection() {
    return this.parent?.combatants;
  }
}

schema("Combat", ["round", "turn", "active", "scene"]);

export class Combat extends Document {
  /** @param {Data} [data] */
  constructor(data = {}) {
    const { combatants = [], ...rest } = data;
    super({ round: 0, turn: 0, active: true, ...rest });
    /** @type {Collection<Combatant>} */
    this.combatants = new Collection();
    for (const c of combatants) {
      const doc = new Combatant(c, this);
      this.combatants.set(doc.id, doc);
    }
  }
  get documentName() {
    return "Combat";
  }
  get round() { return this._source.round; }
  get turn() { return this._source.turn; }
  get active() { return this._source.active; }
  get collection() {
    return game.combats;
  }
  /** A Scene document, as on v11+ (the source keeps its id). */
  get scene() {
    return game.scenes.get(this._source.scene) ?? null;
  }
  /** Initiative order, as Combat#setupTurns sorts: high to low, unrolled last, ties by id. */
  get turns() {
    const ini = (/** @type {Combatant} */ c) => (typeof c.initiative === "number" ? c.initiative : -Infinity);
    return this.combatants.contents.sort((a, b) => ini(b) - ini(a) || (a.id > b.id ? 1 : -1));
  }
  get combatant() {
    return this.turns[this.turn ?? -1];
  }
  toObject() {
    return { ...clone(this._source), combatants: this.combatants.map((c) => c.toObject()) };
  }
  /** @param {Data} changes @param {Data} [options] */
  async update(changes, options = {}) {
    const before = { round: this.round, tokenId: this.combatant?.tokenId ?? null };
    const done = await super.update(changes, options);
    if (done && ("turn" in changes || "round" in changes)) await expireEffects(this, before);
    return done;
  }
  /** @param {string} type @param {Data[]} datas @param {Data} [options] */
  async createEmbeddedDocuments(type, datas, options = {}) {
    calls.push({ op: `${type}.create`, parent: this.id, data: clone(datas), options: clone(options) });
    const made = datas.map((d) => new Combatant(d, this));
    for (const c of made) {
      this.combatants.set(c.id, c);
      Hooks.callAll(`create${type}`, c, options, game.user?.id);
    }
    return made;
  }
  /** @param {Data} data @param {Data} [options] */
  static async create(data, options = {}) {
    calls.push({ op: "Combat.create", data: clone(data), options: clone(options) });
    const combat = new Combat(data);
    game.combats.set(combat.id, combat);
    Hooks.callAll("createCombat", combat, options, game.user?.id);
    return combat;
  }
  /** The tracker's "next turn" button. */
  async nextTurn() {
    const next = (this.turn ?? -1) + 1;
    if (next >= this.combatants.size) return this.update({ round: this.round + 1, turn: 0 });
    return this.update({ turn: next });
  }
}

// -- chat -----------------------------------------------------------------------------------------

schema("ChatMessage", ["type", "style", "author", "timestamp", "flavor", "content", "speaker", "whisper", "blind", "rolls"]);

/** A message as it arrives from any client (`userId` is its author).
 * @param {Data} data @param {Data} [options] @param {string} [userId] */
export function postChat(data, options = {}, userId = game.user?.id) {
  const msg = new ChatMessage({ type: "base", style: 0, author: userId, timestamp: Date.now(), flavor: null, speaker: {}, whisper: [], blind: false, rolls: [], ...clone(data) });
  game.messages.set(msg.id, msg);
  Hooks.callAll("createChatMessage", msg, options, userId);
  return msg;
}

export class ChatMessage extends Document {
  get documentName() {
    return "ChatMessage";
  }
  get content() { return this._source.content; }
  get author() { return this._source.author; }
  get speaker() { return this._source.speaker; }
  get whisper() { return this._source.whisper; }
  /** @param {Data} data @param {Data} [options] */
  static async create(data, options = {}) {
    calls.push({ op: "ChatMessage.create", data: clone(data), options: clone(options) });
    return postChat(data, options, game.user?.id);
  }
  /** @param {string} name */
  static getWhisperRecipients(name) {
    /** @type {Users} */
    const users = game.users;
    return name === "GM" ? users.filter((u) => u.isGM) : users.filter((u) => u.name === name);
  }
  /** @param {{token?: TokenDocument}} [options] */
  static getSpeaker({ token } = {}) {
    return token ? { scene: token.parent?.id, token: token.id, actor: token.actorId, alias: token.name } : { alias: game.user?.name };
  }
  get collection() {
    return game.messages;
  }
}

// -- users, settings, languages -------------------------------------------------------------------

schema("User", ["name", "role", "active", "color"]);

export class User extends Document {
  get documentName() {
    return "User";
  }
  get name() { return this._source.name; }
  get role() { return this._source.role; }
  get active() { return this._source.active; }
  get color() { return this._source.color; }
  get isGM() {
    return this.role >= 3;
  }
  get isSelf() {
    return this.id === game.user?.id;
  }
  /** User#query (v13+): ask this user's client (its handler in CONFIG.queries runs there;
   * here this page plays that client); rejects after `timeout` ms.
   * @param {string} name @param {Data} data @param {{timeout?: number}} [options] */
  async query(name, data, { timeout } = {}) {
    calls.push({ op: "User.query", userId: this.id, name, data: clone(data), timeout });
    const handler = config.queries?.[name];
    if (!handler) throw new Error(`No query "${name}" is registered`);
    if (!this.active) throw new Error(`User ${this.name} is not connected`);
    const answer = Promise.resolve(handler(data, { timeout }));
    if (!timeout) return answer;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const expire = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`The query "${name}" timed out`)), timeout)));
    try {
      return await Promise.race([answer, expire]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** @extends {Collection<User>} */
class Users extends Collection {
  get activeGM() {
    const gms = this.filter((u) => u.isGM && u.active).sort((a, b) => (a.id > b.id ? 1 : -1));
    return gms[0] ?? null;
  }
}

class ClientSettings {
  /** @param {Map<string, unknown>} values the stored values (the world's and this browser's) */
  constructor(values) {
    this.#values = values;
  }
  /** @type {Map<string, Data>} */
  #config = new Map();
  /** @type {Map<string, unknown>} */
  #values;
  /** @param {string} ns @param {string} key @param {Data} cfg */
  register(ns, key, cfg) {
    this.#config.set(`${ns}.${key}`, cfg);
  }
  /** @param {string} ns @param {string} key */
  get(ns, key) {
    const k = `${ns}.${key}`;
    if (!this.#config.has(k)) throw new Error(`setting ${k} is not registered`);
    return this.#values.has(k) ? this.#values.get(k) : this.#config.get(k)?.default;
  }
  /** @param {string} ns @param {string} key @param {unknown} value */
  async set(ns, key, value) {
    const k = `${ns}.${key}`;
    this.#values.set(k, value);
    this.#config.get(k)?.onChange?.(value);
    return value;
  }
}

/** game.i18n: the strings of the languages the active packages declare. */
class Localization {
  /** @type {Data} */
  translations = {};
  /** @param {string} key @returns {string} */
  localize(key) {
    const value = key.split(".").reduce((/** @type {any} */ o, k) => o?.[k], this.translations);
    return typeof value === "string" ? value : key;
  }
  /** @param {string} key @param {Record<string, string>} [data] */
  format(key, data = {}) {
    return this.localize(key).replace(/{([^}]+)}/g, (m, k) => (k in data ? data[k] : m));
  }
  /** @param {string} key */
  has(key) {
    return this.localize(key) !== key;
  }
}

class MemoryStorage {
  /** @type {Map<string, string>} */
  #map = new Map();
  /** @param {string} k */
  getItem(k) {
    return this.#map.get(k) ?? null;
  }
  /** @param {string} k @param {unknown} v */
  setItem(k, v) {
    this.#map.set(k, String(v));
  }
  /** @param {string} k */
  removeItem(k) {
    this.#map.delete(k);
  }
}

// -- dialogs (v13+) -------------------------------------------------------------------------------

/** foundry.applications.api.DialogV2, as far as the module uses it: DialogV2.wait(config) shows
 * a dialog and resolves with the action of the button clicked, or null when it is closed
 * (`rejectClose: false`). Shown here by recording it in `dialogs`. */
export class DialogV2 {
  /** @param {(value: string | null) => void} done */
  constructor(done) {
    this.#done = done;
  }
  /** @type {(value: string | null) => void} */
  #done;
  async close() {
    this.#done(null);
    return this;
  }
  /** @param {Data} config */
  static async wait(config) {
    return new Promise((resolve) => {
      const entry = {
        title: config.window?.title ?? "",
        content: config.content ?? "",
        buttons: (config.buttons ?? []).map((/** @type {Data} */ b) => b.action),
        default: (config.buttons ?? []).find((/** @type {Data} */ b) => b.default)?.action,
        closed: false,
        click: (/** @type {string} */ action) => finish(action),
        close: () => finish(null),
      };
      const finish = (/** @type {string | null} */ value) => {
        if (entry.closed) return;
        entry.closed = true;
        resolve(value === null && config.rejectClose !== false ? null : value);
      };
      const dialog = new DialogV2(finish);
      dialogs.push(entry);
      calls.push({ op: "DialogV2.wait", title: entry.title, content: entry.content, buttons: entry.buttons });
      config.render?.(new Event("render"), dialog);
    });
  }
}

// -- the Token Ruler (v13) ---------------------------------------------------------------------------

/** foundry.canvas.placeables.tokens.TokenRuler, v13: what refresh() would draw, recorded. */
export class TokenRuler {
  /** @param {{document: TokenDocument}} token */
  constructor(token) {
    this.token = token;
  }
  /** TokenRuler#refresh: one path for the movement (passed, pending), one per user's planned
   * movement (history, found path, unreachable waypoints).
   * @param {Data} [data] */
  refresh({ passedWaypoints = [], pendingWaypoints = [], plannedMovement = {} } = {}) {
    /** @type {Data[][]} */
    const paths = [[{ waypoints: passedWaypoints, stage: "passed" }, { waypoints: pendingWaypoints, stage: "pending" }]];
    const slices = [[0, 0]];
    for (const [userId, { foundPath = [], unreachableWaypoints = [], history = [], hidden = false }] of Object.entries(/** @type {Record<string, Data>} */ (plannedMovement))) {
      paths.push([
        { waypoints: history, stage: "passed", hidden },
        { waypoints: foundPath, stage: "planned", hidden, userId },
        { waypoints: unreachableWaypoints, stage: "planned", hidden, unreachable: true, userId },
      ]);
      slices.push([history.filter((/** @type {Data} */ w) => !w.intermediate).length, history.length]);
    }
    /** @type {{segments: Data[], highlights: Data[]}} */
    const drawn = { segments: [], highlights: [] };
    paths.forEach((parts, n) => {
      const ruler = rulerPath(this.token.document, parts, true).slice(slices[n][0]);
      ruler.forEach((w, i) => {
        if (i > 0) drawn.segments.push({ x: w.x, y: w.y, stage: w.stage, style: this._getSegmentStyle(w) });
      });
      const seen = new Set();
      const snapped = rulerPath(this.token.document, parts, false).slice(slices[n][1]);
      for (let j = snapped.length - 1; j >= 0; j--) {
        const w = snapped[j];
        for (const offset of this.token.document.getOccupiedGridSpaceOffsets(w)) {
          const key = `${offset.i},${offset.j}`;
          if (seen.has(key)) continue;
          const style = this._getGridHighlightStyle(w, offset);
          if (!(style.alpha > 0)) continue;
          seen.add(key);
          drawn.highlights.push({ offset, x: w.x, y: w.y, stage: w.stage, style });
        }
      }
    });
    return drawn;
  }
  /** @param {Data} waypoint */
  _getSegmentStyle(waypoint) {
    if (!waypoint.actionConfig.visualize) return { width: 0 };
    const user = game.users.get(waypoint.userId);
    return { width: 4, color: user?.color ?? 0x000000, alpha: 1 };
  }
  /** @param {Data} waypoint @param {Data} offset @returns {Data} */
  _getGridHighlightStyle(waypoint, offset) {
    if (waypoint.unreachable || (waypoint.actionConfig.teleport && waypoint.intermediate)
      || (waypoint.stage === "planned" && waypoint.previous?.stage === "passed" && !waypoint.actionConfig.teleport)) return { alpha: 0 };
    const user = game.users.get(waypoint.userId);
    return { color: user?.color ?? 0x000000, alpha: 0.5 };
  }
}

/** The ruler's waypoints (TokenRulerWaypoint: stage, previous / next, actionConfig).
 * @param {TokenDocument} doc @param {Data[]} parts @param {boolean} skipIntermediate @returns {Data[]} */
function rulerPath(doc, parts, skipIntermediate) {
  /** @type {Data[]} */
  const path = [];
  let index = 0;
  for (const { waypoints, stage, hidden = false, unreachable = false, userId } of parts) {
    for (const w of waypoints) {
      if (skipIntermediate && w.intermediate) continue;
      if (w.explicit) index++;
      const actionConfig = /** @type {Data} */ (MOVEMENT_ACTIONS)[w.action] ?? MOVEMENT_ACTIONS.displace;
      path.push({ ...w, actionConfig, index, stage, hidden, unreachable, userId: userId ?? w.userId, movementId: w.movementId ?? null });
    }
  }
  let total = 0;
  path.forEach((w, i) => {
    w.previous = i > 0 ? path[i - 1] : null;
    w.next = i < path.length - 1 ? path[i + 1] : null;
    if (w.previous) total += doc.measureMovementPath([w.previous, w]).distance;
    w.measurement = { distance: total, cost: total };
  });
  return path;
}

/** A player's drag as the Token Ruler shows it before the drop: the planned path from where
 * the token stands through `points` (top-left corners, px), drawn by the configured ruler
 * class (CONFIG.Token.rulerClass). Returns what it draws.
 * @param {TokenDocument} doc @param {Data[]} points @param {{userId?: string, actions?: string[]}} [options] */
export function planDrag(doc, points, { userId = game.user?.id, actions = [] } = {}) {
  const Ruler = /** @type {typeof TokenRuler} */ (config.Token?.rulerClass);
  const ruler = new Ruler({ document: doc });
  const waypoints = points.map((p, i) => ({ ...p, action: actions[i] ?? p.action, explicit: true, checkpoint: true }));
  const start = { x: doc.x, y: doc.y, elevation: doc.elevation, width: doc.width, height: doc.height, level: doc.level };
  const foundPath = doc.getCompleteMovementPath([start, ...waypoints]).map((w) => ({ ...w, userId }));
  return ruler.refresh({ plannedMovement: { [userId ?? ""]: { foundPath, unreachableWaypoints: [], history: [], hidden: false, searching: false } } });
}

// -- the world ------------------------------------------------------------------------------------

/** @type {Data} */
export let game = /** @type {Data} */ ({});

/** The stand-in's view of CONFIG (what the module configures and reads). @type {Data} */
let config = {};

/**
 * Install the globals for one world. `world`: {users, userId, scenes, actors, combats, system,
 * generation (12, 13 or 14), version}. Returns helpers for the tests.
 * @param {Data} world
 */
export function installFoundry(world) {
  calls.length = 0;
  notes.length = 0;
  dialogs.length = 0;
  hookEvents.clear();
  const generationOf = Number(world.generation ?? 13);
  game = { release: { generation: generationOf } }; // the documents below read it
  const users = new Users((world.users ?? []).map((/** @type {Data} */ u) => [u._id, new User(u)]));
  const scenes = new Collection((world.scenes ?? []).map((/** @type {Data} */ s) => [s._id, new Scene(s)]));
  const actors = new Collection((world.actors ?? []).map((/** @type {Data} */ a) => [a._id, new Actor(a)]));
  /** @type {Collection<Combat>} */
  const combats = new Collection();
  /** @type {Map<string, Fn>} */
  const socketHandlers = new Map();
  /** @type {{name: string, data: unknown}[]} */
  const socketSent = [];
  const i18n = new Localization();
  /** @type {Map<string, unknown>} */
  const stored = new Map();
  const made = {
    version: world.version ?? (generationOf >= 14 ? "14.360" : generationOf >= 13 ? "13.350" : `${generationOf}.343`),
    release: { generation: generationOf },
    world: { id: world.worldId ?? "warehouse-job" },
    system: world.system ?? { id: "worldbuilding", version: "0.8.2" },
    user: null,
    users,
    scenes,
    actors,
    combats,
    messages: new Collection(),
    settings: new ClientSettings(stored),
    i18n,
    socket: {
      on: (/** @type {string} */ name, /** @type {Fn} */ fn) => socketHandlers.set(name, fn),
      emit: (/** @type {string} */ name, /** @type {unknown} */ data) => socketSent.push({ name, data: clone(data) }),
    },
    get combat() {
      return combats.find((c) => c.active) ?? null;
    },
  };
  /** @type {StandIn<typeof made, Foundry["Game"]>} */
  const checkedGame = made;
  game = checkedGame;
  Object.defineProperty(scenes, "active", { get: () => scenes.find((s) => s.active) ?? null });
  game.user = users.get(world.userId);
  for (const c of world.combats ?? []) {
    const combat = new Combat(c);
    combats.set(combat.id, combat);
  }
  const notifications = {
    info: (/** @type {string} */ m) => notes.push({ level: "info", text: m }),
    warn: (/** @type {string} */ m) => notes.push({ level: "warn", text: m }),
    error: (/** @type {string} */ m) => notes.push({ level: "error", text: m }),
  };
  /** @type {StandIn<typeof notifications, Foundry["Notifications"]>} */
  const checkedNotifications = notifications;
  const ui = { notifications: checkedNotifications };
  const tokenConfig = { rulerClass: TokenRuler, movement: { actions: MOVEMENT_ACTIONS, defaultAction: "walk" } };
  const effectConfig = { documentClass: ActiveEffect, expiryAction: world.expiryAction ?? "update" };
  const regionConfig = { documentClass: RegionDocument, dataModels: {}, typeIcons: {} };
  /** @type {[StandIn<typeof tokenConfig, Foundry["TokenConfig"]>, StandIn<typeof effectConfig, Foundry["ActiveEffectConfig"]>, StandIn<typeof regionConfig, Foundry["RegionBehaviorConfig"]>]} */
  const checkedConfigs = [tokenConfig, effectConfig, regionConfig];
  const madeConfig = {
    ChatMessage: { documentClass: ChatMessage },
    Combat: { documentClass: Combat },
    statusEffects: clone(CORE_STATUSES),
    ...(generationOf >= 13 ? { Token: checkedConfigs[0], queries: {} } : {}),
    ...(generationOf >= 14 ? { RegionBehavior: checkedConfigs[2], ActiveEffect: checkedConfigs[1] } : {}),
  };
  /** @type {StandIn<typeof madeConfig, Foundry["CONFIG"]>} */
  const checkedConfig = madeConfig;
  config = checkedConfig;
  const regionEvents = { TOKEN_MOVE_IN: "tokenMoveIn", TOKEN_MOVE_OUT: "tokenMoveOut", TOKEN_MOVE_WITHIN: "tokenMoveWithin", TOKEN_ENTER: "tokenEnter", TOKEN_EXIT: "tokenExit" };
  /** @type {StandIn<typeof regionEvents, Foundry["REGION_EVENTS"]>} */
  const checkedEvents = regionEvents;
  const api = {
    ...(generationOf >= 13 ? { canvas: { placeables: { tokens: { TokenRuler } } }, applications: { api: { DialogV2 } } } : {}),
    ...(generationOf >= 12 ? { data: { regionBehaviors: { RegionBehaviorType } } } : {}),
  };
  Object.assign(globalThis, {
    Hooks,
    game,
    ui,
    ChatMessage,
    Combat,
    CONFIG: config,
    CONST: { REGION_EVENTS: checkedEvents },
    foundry: api,
    canvas: { ready: true, scene: scenes.find((s) => s.active) ?? null },
  });
  if (!globalThis.localStorage) globalThis.localStorage = /** @type {Storage} */ (/** @type {unknown} */ (new MemoryStorage()));
  return {
    game,
    /** The module's socket: what it registered, what it emitted. */
    socket: { handlers: socketHandlers, sent: socketSent },
    /** Load the module's languages (module.json "languages", as Foundry loads an active
     * module's), run Foundry's start-up hooks, then the settings a GM pasted.
     * @param {Record<string, unknown>} [settings] */
    async boot(settings) {
      const manifest = (await import("../module.json", { with: { type: "json" } })).default;
      for (const lang of manifest.languages ?? []) {
        if (lang.lang !== "en") continue;
        const strings = (await import(`../${lang.path}`, { with: { type: "json" } })).default;
        merge(i18n.translations, strings);
      }
      Hooks.callAll("init");
      for (const [k, v] of Object.entries(settings ?? {})) stored.set(`vttbridge.${k}`, v); // already saved
      Hooks.callAll("setup");
      Hooks.callAll("ready");
    },
  };
}

/** The question a dialog shows, as plain text. @param {string} html */
export const dialogText = (html) => String(html).replace(/<[^>]+>/g, " ").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, " ").trim();

// -- the stand-in implements only what Foundry's types declare ------------------------------------
// (a member not declared there fails `npm run typecheck`; see types/stand-in.ts)

/** @type {[
 *   StandIn<typeof Hooks, Foundry["Hooks"]>,
 *   StandIn<Collection<unknown>, Foundry["Collection"]>,
 *   StandIn<Document, Foundry["Document"]>,
 *   StandIn<TokenDocument, Foundry["TokenDocument"]>,
 *   StandIn<RegionDocument, Foundry["RegionDocument"]>,
 *   StandIn<RegionBehavior, Foundry["RegionBehavior"]>,
 *   StandIn<RegionBehaviorType, Foundry["RegionBehaviorType"], Protected["RegionBehaviorType"]>,
 *   StandIn<typeof RegionBehaviorType, Foundry["RegionBehaviorTypeClass"]>,
 *   StandIn<Scene, Foundry["Scene"]>,
 *   StandIn<Actor, Foundry["Actor"]>,
 *   StandIn<TokenActor, Foundry["Actor"]>,
 *   StandIn<ActiveEffect, Foundry["ActiveEffect"]>,
 *   StandIn<Combat, Foundry["Combat"]>,
 *   StandIn<typeof Combat, Foundry["CombatClass"]>,
 *   StandIn<Combatant, Foundry["Combatant"]>,
 *   StandIn<ChatMessage, Foundry["ChatMessage"]>,
 *   StandIn<typeof ChatMessage, Foundry["ChatMessageClass"]>,
 *   StandIn<User, Foundry["User"]>,
 *   StandIn<Users, Foundry["Users"]>,
 *   StandIn<ClientSettings, Foundry["Settings"]>,
 *   StandIn<Localization, Foundry["Localization"]>,
 *   StandIn<DialogV2, Foundry["DialogV2"]>,
 *   StandIn<typeof DialogV2, Foundry["DialogV2Class"]>,
 *   StandIn<TokenRuler, Foundry["TokenRuler"], Protected["TokenRuler"]>,
 * ]} */
export const declaredOnly = /** @type {const} */ ([
  Hooks, Collection.prototype, Document.prototype, TokenDocument.prototype, RegionDocument.prototype,
  RegionBehavior.prototype, RegionBehaviorType.prototype, RegionBehaviorType, Scene.prototype,
  Actor.prototype, TokenActor.prototype, ActiveEffect.prototype, Combat.prototype, Combat,
  Combatant.prototype, ChatMessage.prototype, ChatMessage, User.prototype, Users.prototype,
  ClientSettings.prototype, Localization.prototype, DialogV2.prototype, DialogV2, TokenRuler.prototype,
]);
