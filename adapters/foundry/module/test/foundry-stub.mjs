// A small stand-in of the Foundry VTT globals the module uses, as one client sees them (the
// primary GM's, or a player's): Hooks, game (settings, users, scenes, combats, actors, socket),
// canvas, ui, CONFIG, ChatMessage and documents whose create / update / delete run the
// pre-hooks (a `false` cancels), apply the differential, run the hooks, and are recorded in
// `calls`.
//
// Foundry itself is proprietary and cannot run here. The hook shapes and timings follow
// Foundry's API reference (v12-v13 data: ChatMessage.author/style, rolls as JSON). With
// `generation: 13` (the default) tokens move as Foundry v13 moves them; `generation: 12` gives
// the v11-v12 behaviour (a move is an update of x/y, preUpdateToken can cancel it). The v13
// semantics follow the API reference, Version 13:
//   - TokenDocument#move(waypoints, options): an update whose `movement` option carries the
//     waypoints; #movement (TokenMovementData: id, chain, origin, destination, passed and
//     pending sections with their waypoints, `action` on each, intermediate grid steps marked
//     `intermediate`, method, user, state "pending" | "paused" | "stopped" | "completed");
//   - an update of x/y alone is a movement too (one checkpoint waypoint, method "api");
//   - a movement is split at its first checkpoint: one update per leg. hookEvents.preMoveToken
//     (document, movement, operation) fires on the mover's client before each leg and can only
//     reject it (its position changes are dropped); hookEvents.moveToken(document, movement,
//     operation, user) after each leg; the mover's client then continues with the pending
//     waypoints (chain: the ids before), carrying only the update's own options (animate...);
//   - #pauseMovement(key) on the mover's client while a movement is pending: a Promise<boolean>
//     resolved when #resumeMovement(movementId, key) resumes it (true) or it stops (false);
//     #resumeMovement from another client broadcasts to the mover (here: recorded);
//     #stopMovement() on the mover's client; a new movement that is no continuation stops a
//     pending or paused one (hookEvents.pauseToken / stopToken fire);
//   - foundry.canvas.placeables.tokens.TokenRuler#refresh({passedWaypoints, pendingWaypoints,
//     plannedMovement}) builds TokenRulerWaypoints (stage, previous / next, actionConfig) and
//     asks _getSegmentStyle(waypoint) for each segment and _getGridHighlightStyle(waypoint,
//     offset) for each grid space; here it records what it would draw in `ruler.drawn`.
// Animations take no time here. An update with the stand-in's own option `stubUser: <user id>`
// is one another client made, as this client receives it: its pre-hooks ran there (not here),
// the hooks here get that user, and that client goes on with a pending movement. Plain ES
// module with no Node imports: the Node tests and the Chromium page both load it.

export const calls = [];
export const notes = [];

function clone(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/** A record of an update's options: the movement data is Foundry's own, left out. */
function optionsRecord(options) {
  const { _movement, movement, _movementArguments, ...rest } = options ?? {};
  return clone(rest);
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

const MOVEMENT_KEYS = ["x", "y", "elevation", "width", "height", "shape"];

function isSelf(user) {
  return Boolean(user) && user.id === game.user.id;
}

function gridOf(doc) {
  const g = doc.parent?.grid;
  return { size: g?.size ?? 100, distance: g?.distance ?? 5 };
}

/** Grid steps from cell a to cell b (BaseGrid#getDirectPath on a square grid). */
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

  // -- v13 movement ---------------------------------------------------------------------------
  get movementAction() {
    return this._source.movementAction ?? "walk";
  }
  /** TokenDocument#movement: the current or last movement (an idle one before any). */
  get movement() {
    if (this._movement) return this._movement;
    const origin = this.position();
    const none = { waypoints: [], distance: 0, cost: 0, spaces: 0, diagonals: 0 };
    return { id: "", chain: [], origin, destination: origin, passed: none, pending: none, method: "api", user: game.user, state: "completed", updateOptions: {} };
  }
  position(w = this._source) {
    return { x: w.x, y: w.y, elevation: w.elevation ?? 0, width: w.width ?? 1, height: w.height ?? 1, shape: w.shape ?? 4 };
  }
  cellOf(w) {
    const { size } = gridOf(this);
    const width = w.width ?? this._source.width ?? 1;
    const height = w.height ?? this._source.height ?? 1;
    return [Math.floor((w.x + (width * size) / 2) / size), Math.floor((w.y + (height * size) / 2) / size)];
  }
  /** TokenDocument#getCompleteMovementPath: the waypoints with the grid steps between them. */
  getCompleteMovementPath(waypoints) {
    const { size } = gridOf(this);
    const path = [];
    let previous = null;
    for (const w of waypoints) {
      const action = w.action ?? previous?.action ?? this.movementAction;
      if (previous && !MOVEMENT_ACTIONS[action]?.teleport) {
        const steps = directPath(this.cellOf(previous), this.cellOf(w));
        for (const [cx, cy] of steps.slice(1, -1)) {
          const width = w.width ?? this._source.width ?? 1;
          const height = w.height ?? this._source.height ?? 1;
          const x = Math.round((cx + 0.5) * size - (width * size) / 2);
          const y = Math.round((cy + 0.5) * size - (height * size) / 2);
          path.push({ ...this.position({ ...w, x, y }), action, snapped: true, explicit: false, checkpoint: false, intermediate: true });
        }
      }
      path.push({ ...this.position(w), action, snapped: w.snapped ?? false, explicit: w.explicit ?? false, checkpoint: w.checkpoint ?? false, intermediate: w.intermediate ?? false });
      previous = w;
    }
    return path;
  }
  measure(from, waypoints) {
    const { distance } = gridOf(this);
    let total = 0;
    let at = this.cellOf(from);
    for (const w of waypoints) {
      const c = this.cellOf(w);
      total += Math.max(Math.abs(c[0] - at[0]), Math.abs(c[1] - at[1])) * distance;
      at = c;
    }
    return { distance: total, cost: total, spaces: total / distance, diagonals: 0 };
  }
  /** TokenDocument#getOccupiedGridSpaceOffsets: the grid spaces a token covers there. */
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
  /** TokenDocument#move(waypoints, options). */
  async move(waypoints, { method, constrainOptions, autoRotate, showRuler, ...options } = {}) {
    if (!Array.isArray(waypoints)) waypoints = [waypoints];
    if (!waypoints.length) return false;
    const args = { result: false };
    calls.push({ op: "Token.move", id: this.id, waypoints: clone(waypoints), method, options: clone(options) });
    const updated = await this.update({}, { ...options, movement: { [this.id]: { waypoints, method, constrainOptions, autoRotate, showRuler } }, _movementArguments: args });
    return args.result && Boolean(updated);
  }
  /** The movement of an update (#preUpdateMovement): waypoints cleaned, split at the first
   * checkpoint, measured; null when the update moves nothing. */
  planMovement(changed, options) {
    const spec = options.movement?.[this.id] ?? {};
    let waypoints = spec.waypoints?.length ? spec.waypoints : null;
    if (!waypoints && MOVEMENT_KEYS.some((k) => k in changed)) {
      waypoints = [{ ...Object.fromEntries(MOVEMENT_KEYS.filter((k) => k in changed).map((k) => [k, changed[k]])), checkpoint: true }];
    }
    if (!waypoints) return null;
    const origin = this.position();
    let previous = { ...origin, action: this.movementAction };
    const clean = waypoints.map((w) => {
      const c = {
        ...this.position({ ...previous, ...Object.fromEntries(MOVEMENT_KEYS.filter((k) => w[k] !== undefined).map((k) => [k, w[k]])) }),
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
    passed.at(-1).checkpoint = true;
    const destination = this.position(passed.at(-1));
    const passedPath = this.getCompleteMovementPath([origin, ...passed]).slice(1);
    const pendingPath = this.getCompleteMovementPath([destination, ...pending]).slice(1);
    return {
      id: randomID(),
      chain: options._movementArguments?.chain ?? [],
      origin,
      destination,
      passed: { waypoints: passedPath, ...this.measure(origin, passed) },
      pending: { waypoints: pendingPath, ...this.measure(destination, pending) },
      constrained: false,
      recorded: false,
      method: spec.method ?? (options.isUndo ? "undo" : "api"),
      constrainOptions: spec.constrainOptions ?? {},
      autoRotate: Boolean(spec.autoRotate),
      showRuler: Boolean(spec.showRuler),
    };
  }
  /** update(changes, options), v13: a movement first (preMoveToken), then preUpdateToken, the
   * change, updateToken, moveToken, and the mover's client continues a pending movement. */
  async update(changes, options = {}) {
    if (!(game.release.generation >= 13)) return super.update(changes, options);
    const remote = options.stubUser ?? null; // made on another client: its pre-hooks ran there
    const userId = remote ?? game.user.id;
    const record = { op: "Token.update", id: this.id, changes: clone(changes), options: optionsRecord(options) };
    calls.push(record);
    if (options._pauseMovement || options._resumeMovement || options._stopMovement) return this; // to the other clients
    let changed = diff(this._source, expand(changes));
    let move = this.planMovement(changed, options);
    if (move) {
      for (const k of MOVEMENT_KEYS) delete changed[k];
      const allowed = options.noHook || remote !== null || Hooks.call("preMoveToken", this, move, options) !== false;
      if (allowed) {
        Object.assign(changed, { x: move.destination.x, y: move.destination.y, elevation: move.destination.elevation });
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
    if (move) this.startMovement(move, user, options);
    Hooks.callAll("updateToken", this, { _id: this.id, ...real }, options, userId);
    if (move) {
      Hooks.callAll("moveToken", this, move, options, user);
      // the mover's client goes on (here, or the other client this update came from)
      if ((isSelf(user) || remote !== null) && this._movement?.state === "pending") setTimeout(() => this.continueMovement(move.id, remote), 0);
    }
    return this;
  }
  startMovement(move, user, options) {
    const current = this._movement;
    if (current && current.id !== move.chain.at(-1)) this.stopHere();
    const { animate, animation, diff: d, noHook, pan, render } = options;
    const state = move.pending.waypoints.length ? "pending" : "completed";
    this._movement = Object.freeze({ ...move, user, state, updateOptions: clone({ animate, animation, diff: d, noHook, pan, render }) ?? {} });
  }
  setMovementState(state, extra = {}) {
    this._movement = Object.freeze({ ...this._movement, ...extra, state });
  }
  /** The mover goes on with the pending waypoints, as its own update (#continueMovement). */
  async continueMovement(movementId, remote = null) {
    const m = this._movement;
    if (!m || m.id !== movementId || m.state !== "pending") return false;
    const waypoints = m.pending.waypoints.filter((w) => !w.intermediate);
    const args = { result: false, chain: [...m.chain, m.id] };
    const options = { ...clone(m.updateOptions), ...(remote === null ? {} : { stubUser: remote }), movement: { [this.id]: { waypoints, method: m.method, constrainOptions: m.constrainOptions, autoRotate: m.autoRotate, showRuler: m.showRuler } }, _movementArguments: args };
    const updated = await this.update({}, options);
    return args.result && Boolean(updated);
  }
  /** TokenDocument#pauseMovement(key): the mover's client, while a movement is pending. */
  pauseMovement(key) {
    const m = this.movement;
    if (!isSelf(m.user)) throw new Error("Only the User that initiated the movement can pause it.");
    if (m.state !== "paused") {
      if (m.state !== "pending") return null;
      this.setMovementState("paused");
      calls.push({ op: "Token.pauseMovement", id: this.id, movementId: m.id, key });
      Hooks.callAll("pauseToken", this);
    }
    this._handles ??= new Map();
    if (this._handles.has(key)) throw new Error(`TokenDocument#pauseMovement was already called with key "${key}" for the current movement`);
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    this._handles.set(key ?? Symbol(""), { movementId: m.id, resolve });
    return key === undefined ? async () => this.resumeMovement(m.id, undefined) : promise;
  }
  /** TokenDocument#resumeMovement(movementId, key): on the mover's client it resumes once every
   * key that paused it came back; from another client it is sent to the mover. */
  resumeMovement(movementId, key) {
    if (!isSelf(this.movement.user)) {
      calls.push({ op: "Token.update", id: this.id, changes: {}, options: { diff: false, noHook: true, _resumeMovement: [movementId, key] } });
      return;
    }
    calls.push({ op: "Token.resumeMovement", id: this.id, movementId, key });
    const handle = this._handles?.get(key);
    if (!handle || handle.movementId !== movementId) return;
    this._handles.delete(key);
    if ([...this._handles.values()].some((h) => h.movementId === movementId)) return;
    const m = this._movement;
    if (!m || m.id !== movementId || m.state !== "paused") {
      handle.resolve(false);
      return;
    }
    this.setMovementState("pending");
    setTimeout(async () => handle.resolve(await this.continueMovement(movementId)), 0);
  }
  /** TokenDocument#stopMovement(): the mover's client only. */
  stopMovement() {
    if (!isSelf(this.movement.user)) throw new Error("Only the User that initiated the movement can stop it.");
    calls.push({ op: "Token.stopMovement", id: this.id, movementId: this.movement.id });
    return this.stopHere();
  }
  stopHere() {
    const m = this._movement;
    if (!m || m.state === "stopped") return Boolean(m);
    if (m.state === "completed") return false;
    this.setMovementState("stopped", { pending: { waypoints: [], distance: 0, cost: 0, spaces: 0, diagonals: 0 } });
    for (const [k, h] of this._handles ?? []) {
      if (h.movementId === m.id) {
        this._handles.delete(k);
        h.resolve(false);
      }
    }
    Hooks.callAll("stopToken", this);
    return true;
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
  static fields = ["name", "role", "active", "color"];
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

// -- the Token Ruler (v13) ---------------------------------------------------------------------------

/** foundry.canvas.placeables.tokens.TokenRuler, v13: what refresh() would draw, recorded. */
export class TokenRuler {
  constructor(token) {
    this.token = token;
    this.drawn = null;
  }
  /** TokenRuler#refresh: one path for the movement (passed, pending), one per user's planned
   * movement (history, found path, unreachable waypoints). */
  refresh({ passedWaypoints = [], pendingWaypoints = [], plannedMovement = {} } = {}) {
    const paths = [[{ waypoints: passedWaypoints, stage: "passed" }, { waypoints: pendingWaypoints, stage: "pending" }]];
    const slices = [[0, 0]];
    for (const [userId, { foundPath = [], unreachableWaypoints = [], history = [], hidden = false }] of Object.entries(plannedMovement)) {
      paths.push([
        { waypoints: history, stage: "passed", hidden },
        { waypoints: foundPath, stage: "planned", hidden, userId },
        { waypoints: unreachableWaypoints, stage: "planned", hidden, unreachable: true, userId },
      ]);
      slices.push([history.filter((w) => !w.intermediate).length, history.length]);
    }
    const drawn = { segments: [], highlights: [] };
    paths.forEach((parts, n) => {
      const ruler = this.#path(parts, true).slice(slices[n][0]);
      ruler.forEach((w, i) => {
        if (i > 0) drawn.segments.push({ x: w.x, y: w.y, stage: w.stage, style: this._getSegmentStyle(w) });
      });
      const seen = new Set();
      const snapped = this.#path(parts, false).slice(slices[n][1]);
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
    this.drawn = drawn;
    return drawn;
  }
  #path(parts, skipIntermediate) {
    const path = [];
    let index = 0;
    for (const { waypoints, stage, hidden = false, unreachable = false, userId } of parts) {
      for (const w of waypoints) {
        if (skipIntermediate && w.intermediate) continue;
        if (w.explicit) index++;
        const actionConfig = MOVEMENT_ACTIONS[w.action] ?? MOVEMENT_ACTIONS.displace;
        path.push({ ...w, actionConfig, index, stage, hidden, unreachable, userId: userId ?? w.userId, movementId: w.movementId ?? null });
      }
    }
    let total = 0;
    path.forEach((w, i) => {
      w.previous = i > 0 ? path[i - 1] : null;
      w.next = i < path.length - 1 ? path[i + 1] : null;
      if (w.previous) total += this.token.document.measure(w.previous, [w]).distance;
      w.measurement = { distance: total, cost: total };
    });
    return path;
  }
  _getSegmentStyle(waypoint) {
    if (!waypoint.actionConfig.visualize) return { width: 0 };
    const user = game.users.get(waypoint.userId);
    return { width: 4, color: user?.color ?? 0x000000, alpha: 1 };
  }
  _getGridHighlightStyle(waypoint, offset) {
    if (waypoint.unreachable || (waypoint.actionConfig.teleport && waypoint.intermediate)
      || (waypoint.stage === "planned" && waypoint.previous?.stage === "passed" && !waypoint.actionConfig.teleport)) return { alpha: 0 };
    const user = game.users.get(waypoint.userId);
    return { color: user?.color ?? 0x000000, alpha: 0.5 };
  }
}

/** A player's drag as the Token Ruler shows it before the drop: the planned path from where
 * the token stands through `points` (top-left corners, px), drawn by the configured ruler
 * class (CONFIG.Token.rulerClass). Returns what it draws. */
export function planDrag(doc, points, { userId = game.user.id, actions = [] } = {}) {
  const Ruler = globalThis.CONFIG.Token.rulerClass;
  const ruler = new Ruler({ document: doc });
  const waypoints = points.map((p, i) => ({ ...p, action: actions[i] ?? p.action, explicit: true, checkpoint: true }));
  const foundPath = doc.getCompleteMovementPath([doc.position(), ...waypoints]).map((w) => ({ ...w, userId }));
  return ruler.refresh({ plannedMovement: { [userId]: { foundPath, unreachableWaypoints: [], history: [], hidden: false, searching: false } } });
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
  const generation = world.generation ?? 13;
  game = {
    version: world.version ?? (generation >= 13 ? "13.350" : `${generation}.343`),
    release: { generation },
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
      ...(generation >= 13 ? { Token: { rulerClass: TokenRuler, movement: { actions: MOVEMENT_ACTIONS, defaultAction: "walk" } } } : {}),
    },
    foundry: generation >= 13 ? { canvas: { placeables: { tokens: { TokenRuler } } } } : undefined,
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
