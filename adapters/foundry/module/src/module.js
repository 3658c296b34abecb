// vttbridge companion module for Foundry VTT v11-v14.
//
// On the primary active GM's client it opens a socket.io connection to a vttbridge server,
// forwards token, chat, combat and actor hooks, and applies the commands the server sends back
// (one Foundry call each, acknowledged): chat, token moves, initiative, turns, and what the rules
// change on a character: its sheet (Actor.update: the world actor of a linked token, the
// synthetic actor of an unlinked one) and the conditions on its token (status effects; v14: an
// Active Effect with the rules' duration, effects.js). On every client it holds the token moves
// the server watches (a Ready on the attempt), colours the Token Ruler by the rules' movement
// budget (v13+, ruler.js), answers the rules' questions (v13+: a User#query dialog, prompts.js;
// else answer buttons in the whisper). Every string a user reads is localised (i18n.js,
// lang/*.json).
//
// Moves, v11-v12: a move is an update of x/y. A watched one is held by returning false from
// preUpdateToken, and applied (or not) when the bridge answers.
//
// Moves, v13 (API reference, Version 13: TokenDocument#move, #movement, #pauseMovement(key),
// #resumeMovement(movementId, key), #stopMovement; hookEvents.preMoveToken, which fires on the
// mover's own client and can only reject the whole movement, and hookEvents.moveToken(document,
// movement, operation, user), on every client after each update; TokenMovementOperation:
// origin, destination, passed / pending waypoints with their `action`, chain). A movement runs
// checkpoint to checkpoint, one update each, and can be paused only between them: preMoveToken
// sees a leg about to enter a watched cell and re-plans the drag once with a checkpoint where
// the token stands before that cell (the same path and waypoints); moveToken on the mover's
// client pauses the movement there (pauseMovement with the hold's id as key) and hands the rest
// of the path to the bridge; when the Ready resolves the bridge's answer resumes it
// (resumeMovement), or stops it where the rules put the token.
//
// Moves, v14: the watched cells are Regions with this module's behavior type (holdregions.js):
// core splits the movement where it enters one, and the behavior pauses it there on the mover's
// client; the held move reaches the bridge from where the entering leg began. Watches of every
// move (a Ready on a condition) keep the v13 way. Levels (v14 Scene Levels) are part of a
// position: a watch belongs to levels, waypoints and tokens carry theirs.
//
// The GM's client forwards every completed leg from moveToken with its path and each waypoint's
// action and level; the legs of a held move resumed later go under the hold's id, which the
// bridge has seen.
//
// Protocol: docs/protocol.md; hold protocol: sdk/holds.py (a built-in script of every
// world); budgets: sdk/budget.py.

import { io } from "socket.io-client";
import { cellOf, gridSize, stepCells, watchedEntry, watchedMove, xyOf } from "./geometry.js";
import { budgetRuler } from "./ruler.js";
import { MODULE_ID, notify, t } from "./i18n.js";
import { HOLD_TYPE, enteredHold, holdBehaviorClass, isHoldRegion, syncHoldRegions } from "./holdregions.js";
import { QUERY, askDialog, escapeHtml, queriesApi, registerQueries } from "./prompts.js";
import { CommandError, setStatus, statusEffect } from "./effects.js";

export { RULER_COLORS, budgetTier, plannedLength } from "./ruler.js";
export { pathLength } from "./geometry.js";
export { MODULE_ID, statusEffect };

/** @typedef {import("./geometry.js").WatchFlag} WatchFlag */
/** @typedef {import("./geometry.js").Watch} Watch */
/** @typedef {import("./geometry.js").Spot} Spot */
/** @typedef {import("../types/vttbridge").Hold} Hold */
/** @typedef {import("../types/vttbridge").Command} Command */
/** @typedef {import("../types/vttbridge").CommandAck} CommandAck */
/** @typedef {import("../types/vttbridge").Notice} Notice */
/** @typedef {import("../types/vttbridge").StatusToggle} StatusToggle */
/** @typedef {import("../types/vttbridge").PromptCommand} PromptCommand */
/** @typedef {import("../types/vttbridge").Mark} Mark */
/** @typedef {import("../types/foundry-v14").TokenDocumentV14} TokenDocumentV14 */
/** @typedef {import("../types/foundry-v14").MovementV14} MovementV14 */
/** @typedef {import("../types/foundry-v14").WaypointV14} WaypointV14 */
/** @typedef {import("socket.io-client").Socket} Socket */
/** @typedef {typeof io} Connect */
/** @typedef {Record<string, unknown>} Options */

export const VERSION = "0.1.0";
const NAMESPACE = "/foundry";
const PROTOCOL = 1;
const CLOSED_HOLDS_KEPT = 200;
const RELAY_SLACK_MS = 500;
const OUTBOX_MAX = 200;
const QUERY_SLACK_S = 2;
/** Refused connects that a retry cannot mend: they wait for the settings to change. */
const FINAL_REFUSALS = ["bad_auth", "wrong_key", "unknown_world", "unsupported_protocol"];
/** Hook option / flag scope marking the bridge's own writes. */
const FLAG = MODULE_ID;

// -- small helpers ------------------------------------------------------------------------------

function newId() {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A plain JSON copy (what goes on the wire).
 * @template T @param {T} value @returns {T}
 */
function plain(value) {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/**
 * The canvas size (scene plus padding, px), so the bridge can refuse positions off it.
 * @param {Scene} scene
 */
function dimensionsOf(scene) {
  const d = scene.dimensions;
  return d?.width > 0 && d?.height > 0 ? { dimensions: { width: d.width, height: d.height } } : {};
}

/** @param {{toObject: () => object}} doc @returns {Record<string, any>} */
function toObject(doc) {
  return /** @type {Record<string, any>} */ (doc.toObject());
}

/** @param {string} text */
function hashText(text) {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h << 5) + h + text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

/**
 * @template {"serverUrl" | "world" | "key" | "ruler"} K
 * @param {K} key
 */
function setting(key) {
  try {
    return game.settings?.get(MODULE_ID, key);
  } catch {
    return undefined;
  }
}

function generation() {
  return Number(game.release?.generation ?? 0);
}

/** v13+: tokens move through TokenDocument#move, with movement data and pausing. */
export function movementApi() {
  return generation() >= 13;
}

/** v14: watched cells are hold Regions (holdregions.js). */
function regionHolds() {
  return generation() >= 14 && Boolean(CONFIG.RegionBehavior?.dataModels?.[HOLD_TYPE]);
}

function isPrimaryGM() {
  const active = game.users?.activeGM;
  if (active !== undefined) return Boolean(active?.isSelf);
  return Boolean(game.user?.isGM); // before v11
}

/** @returns {Scene | null} */
function activeScene() {
  return game.scenes?.active ?? canvas?.scene ?? null;
}

/** @returns {string[]} */
function gmIds() {
  return (game.users?.filter((u) => u.isGM) ?? []).map((u) => u.id ?? "");
}

/** @param {string[] | undefined} list @returns {string[]} */
function whisperIds(list) {
  /** @type {string[]} */
  const out = [];
  for (const id of list ?? []) {
    if (id === "GM") out.push(...gmIds());
    else out.push(id);
  }
  return out;
}

/**
 * Our own write (a command applied, a release): its hooks are not sent back. A fallback and
 * a re-planned drag are the player's moves, marked only so they are recognised.
 * @param {Mark | undefined} mark
 */
function ownWrite(mark) {
  return Boolean(mark) && !mark?.fallback && !mark?.split;
}

/** @param {unknown} options @returns {Mark | undefined} */
function markOf(options) {
  return /** @type {Record<string, Mark> | undefined} */ (options)?.[FLAG];
}

/** @param {string | null} key @returns {number | null} the last applied command seq kept here */
function storedSeq(key) {
  if (!key) return null;
  try {
    const v = globalThis.localStorage?.getItem(key);
    if (v === null || v === undefined || v === "") return null;
    const n = Number(v);
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch {
    return null; // storage refused (private mode): the bridge resumes from its own record
  }
}

/** @param {Scene | null | undefined} scene @returns {WatchFlag | null} */
function watchOf(scene) {
  const watch = scene?.getFlag(MODULE_ID, "watch");
  return watch?.watches?.length ? watch : null;
}

function gmOnline() {
  return Boolean(game.users?.activeGM ?? game.users?.find((u) => u.isGM && u.active));
}

/** @param {{isSelf?: boolean} | null | undefined} user */
function isSelf(user) {
  return Boolean(user?.isSelf);
}

/**
 * A token's current movement, with v14's levels.
 * @param {TokenDocument} doc @returns {MovementV14}
 */
function movementOf(doc) {
  return /** @type {MovementV14} */ (/** @type {unknown} */ (doc.movement));
}

/** @param {TokenDocument} doc @returns {string | null} */
function levelOf(doc) {
  return /** @type {TokenDocumentV14} */ (doc).level ?? null;
}

// -- v13+ movement helpers ------------------------------------------------------------------------

const WAYPOINT_KEYS = /** @type {const} */ (["x", "y", "elevation", "width", "height", "shape", "action", "snapped", "explicit", "checkpoint", "level"]);

/**
 * Waypoints as TokenDocument#move takes them (TokenMovementWaypoint), grid steps left out.
 * @param {readonly WaypointV14[]} waypoints @returns {Record<string, unknown>[]}
 */
function moveWaypoints(waypoints) {
  return waypoints
    .filter((w) => !w.intermediate)
    .map((w) => Object.fromEntries(WAYPOINT_KEYS.filter((k) => w[k] !== undefined).map((k) => [k, w[k]])));
}

/**
 * The waypoints of a movement section the bridge reads: position, action, level, elevation.
 * @param {readonly WaypointV14[]} waypoints
 */
function explicitWaypoints(waypoints) {
  return waypoints
    .filter((w) => !w.intermediate)
    .map((w) => ({ x: w.x, y: w.y, ...(w.action ? { action: w.action } : {}), ...(w.level ? { level: w.level, elevation: w.elevation } : {}) }));
}

/**
 * @param {Spot} a @param {Spot} b @param {number} size @param {TokenDocument} doc
 */
function sameCell(a, b, size, doc) {
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const ca = cellOf(a.x, a.y, size, a.width ?? w, a.height ?? h);
  const cb = cellOf(b.x, b.y, size, b.width ?? w, b.height ?? h);
  return ca[0] === cb[0] && ca[1] === cb[1] && (a.level ?? null) === (b.level ?? null);
}

/**
 * Stop a paused movement. Only its mover's client may (TokenDocument#stopMovement): another
 * client asks it over the module's socket.
 * @param {TokenDocument} token @param {string} movementId
 */
function stopMovement(token, movementId) {
  const m = token.movement;
  if (!m || m.id !== movementId) return;
  if (isSelf(m.user)) token.stopMovement();
  else game.socket?.emit(`module.${MODULE_ID}`, { type: "stop", sceneId: token.parent?.id, tokenId: token.id, movementId });
}

/**
 * A held move nobody rules on (no answer, or the bridge would not hold it): it goes through as
 * the player made it. v11-v12: the update the hook held, marked with the hold's id (the bridge
 * applies that id once); v13+: the paused movement resumes.
 * @param {Hold} h
 */
async function letThrough(h) {
  const token = game.scenes?.get(h.sceneId)?.tokens?.get(h.tokenId);
  if (!token) return;
  if (h.movementId) {
    token.resumeMovement(h.movementId, h.id);
    return;
  }
  await token.update(h.changes, /** @type {never} */ ({ animate: true, [FLAG]: { fallback: h.id } }));
}

/**
 * A notice to the GMs in chat, in the GM's language.
 * @param {string} key @param {Record<string, string | number>} data @param {string} notice
 */
async function whisperGMs(key, data, notice) {
  await ChatMessage.implementation.create({
    content: `<p>${escapeHtml(t(key, data))}</p>`,
    whisper: gmIds(),
    speaker: { alias: "vttbridge" },
    flags: { [FLAG]: { bridge: true, notice } },
  });
}

// -- the connection (primary GM only) -------------------------------------------------------------

export class Bridge {
  /** @param {{io?: Connect}} [opts] `io`: socket.io-client's (a test passes a stand-in's) */
  constructor({ io: connect = io } = {}) {
    this.io = connect;
    /** @type {Socket | null} */
    this.socket = null;
    /** @type {string | null} */
    this.sceneId = null;
    /** @type {"idle" | "connecting" | "connected" | "lost" | "retrying" | "refused"} */
    this.state = "idle";
    this.everConnected = false;
    /** @type {Promise<unknown>} */
    this.chain = Promise.resolve();
    /** @type {Map<string, Hold>} hold id -> the hold */
    this.holds = new Map();
    /** @type {Set<string>} */
    this.closedHolds = new Set();
    /** @type {Map<string, {x: number, y: number, level: string | null, elevation: number}>} token -> last place */
    this.positions = new Map();
    /** @type {Map<string, {round: number, turn: number | null, tokenId: string | null, combatantId: string | null}>} */
    this.turns = new Map();
    /** @type {number | null} the highest command seq applied; null: not known in this browser */
    this.lastSeq = null;
    /** @type {string | null} */
    this.seqKey = null;
    /** @type {Map<string, {event: string, body: Record<string, unknown>}>} not acknowledged yet, in order */
    this.outbox = new Map();
    /** @type {Map<string, string>} v13+ movement id -> the id of the hold it was paused for */
    this.heldMoves = new Map();
    /** @type {Set<string>} companion notices shown this session */
    this.noticed = new Set();
  }

  get connected() {
    return Boolean(this.socket?.connected);
  }

  // -- life cycle -----------------------------------------------------------------------------
  start() {
    this.stop();
    const url = String(setting("serverUrl") ?? "").trim();
    const world = String(setting("world") ?? "").trim();
    const key = String(setting("key") ?? "").trim();
    if (!url || !world || !key) {
      notify("warn", "Notify.NotLinked");
      return false;
    }
    let target;
    try {
      target = new URL(url);
    } catch {
      notify("error", "Notify.BadUrl", { url });
      return false;
    }
    if (globalThis.location?.protocol === "https:" && target.protocol === "http:" && !isLoopback(target)) {
      notify("warn", "Notify.MixedContent");
    }
    this.seqKey = `${MODULE_ID}.lastSeq.${game.world?.id ?? "world"}.${world}.${hashText(`${target.origin}|${key}`)}`;
    this.lastSeq = storedSeq(this.seqKey);
    const base = target.pathname.replace(/\/+$/, "");
    this.state = "connecting";
    const socket = this.io(target.origin + NAMESPACE, {
      path: `${base}/socket.io`,
      transports: ["websocket", "polling"],
      reconnection: true,
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10000,
      auth: (cb) =>
        cb({
          world,
          key,
          protocol: PROTOCOL,
          // no record (a new browser, private mode, a reset key): the bridge resumes from the
          // world's acknowledged commands; last_seq 0 would send its whole history again
          ...(this.lastSeq === null ? {} : { last_seq: this.lastSeq }),
          client: {
            name: "vttbridge-foundry",
            version: VERSION,
            vtt: `foundry ${game.version ?? ""}`.trim(),
            system: game.system?.id,
          },
        }),
    });
    this.socket = socket;
    socket.on("connect", () => this.onConnect());
    socket.on("disconnect", (reason) => this.onDisconnect(reason));
    socket.on("connect_error", (err) => this.onConnectError(/** @type {Error & {data?: {code?: string, retry_after?: number}}} */ (err)));
    socket.on("command", (/** @type {Command} */ msg, /** @type {(a: CommandAck) => void} */ ack) => this.onCommand(msg, ack));
    socket.on("notice", (/** @type {Notice} */ notice) => this.onNotice(notice));
    return true;
  }

  stop() {
    if (this.socket) {
      this.socket.removeAllListeners();
      this.socket.disconnect();
      this.socket = null;
    }
    this.state = "idle";
  }

  onConnect() {
    const recovered = this.everConnected;
    this.everConnected = true;
    this.state = "connected";
    if (recovered) notify("info", "Notify.Recovered");
    else notify("info", "Notify.Linked", { url: String(setting("serverUrl")), world: String(setting("world")) });
    // events whose ack never came (lost with the connection) or made while away go again,
    // in order and under their own ids (the bridge applies an id once); a fresh scene follows
    for (const [id, e] of this.outbox) if (e.event === "snapshot") this.outbox.delete(id);
    for (const e of [...this.outbox.values()]) this.emitQueued(e);
    this.sendSnapshot();
  }

  /** @param {string} reason */
  onDisconnect(reason) {
    if (!this.socket) return; // stopped on purpose
    if (this.state === "connected") notify("warn", "Notify.Lost", { reason });
    this.state = "lost";
    if (reason === "io server disconnect") {
      // the server closed us: socket.io does not retry by itself
      setTimeout(() => this.socket?.connect(), 2000);
    }
    for (const h of [...this.holds.values()]) this.fallback(h, "Hold.Lost");
  }

  /** @param {Error & {data?: {code?: string, retry_after?: number}}} err */
  onConnectError(err) {
    const code = err?.data?.code;
    if (code && FINAL_REFUSALS.includes(code)) {
      notify("error", "Notify.Refused", { reason: err.message });
      this.state = "refused";
      this.socket?.disconnect(); // retry only after the settings change
      return;
    }
    if (this.state !== "lost" && this.state !== "retrying") {
      notify("warn", "Notify.Unreachable", { url: String(setting("serverUrl")), reason: String(err?.message ?? err) });
    }
    this.state = "retrying";
    // a refusal that passes (shutting down, too many attempts...): socket.io does not retry
    // a refused connect by itself; wait as long as the bridge asks
    const wait = Math.max(3, Number(err?.data?.retry_after) || 0) * 1000;
    if (err?.data) setTimeout(() => this.socket && !this.socket.connected && this.socket.connect(), wait);
  }

  /**
   * What the bridge says of this connection: a companion of a version it does not support
   * (this module, older or newer than its range) is told so in plain words, once a session.
   * @param {Notice} n
   */
  onNotice(n) {
    if (n?.code !== "companion_version") return;
    const seen = `${n.companion?.name}@${n.companion?.version}`;
    if (this.noticed.has(seen)) return;
    this.noticed.add(seen);
    const data = { version: n.companion?.version ?? "?", range: n.supported ?? "?", bridge: n.bridge ?? "?" };
    notify("warn", n.older ? "Notify.ModuleTooOld" : "Notify.ModuleTooNew", data);
  }

  // -- outbound events ------------------------------------------------------------------------
  /**
   * Send an event; it stays in the outbox until the bridge acknowledges it, and goes again
   * after a reconnect if its ack was lost (socket.io buffers only while disconnected).
   * @param {string} event @param {Record<string, unknown>} payload
   */
  send(event, payload) {
    if (!this.socket) return;
    const body = { id: newId(), systemId: game.system?.id, ...payload };
    const entry = { event, body };
    this.outbox.set(String(body.id), entry);
    if (this.outbox.size > OUTBOX_MAX) {
      const [oldest] = this.outbox.keys();
      this.outbox.delete(oldest); // the scene sent after the reconnect stands for it
      console.warn(`vttbridge | more than ${OUTBOX_MAX} events wait for the bridge; the oldest is dropped`);
    }
    if (this.socket.connected) this.emitQueued(entry);
  }

  /** @param {{event: string, body: Record<string, unknown>}} entry */
  emitQueued(entry) {
    const { event, body } = entry;
    this.socket?.emit(event, body, (/** @type {CommandAck} */ ack) => {
      this.outbox.delete(String(body.id));
      if (ack && !ack.ok) {
        console.warn(`vttbridge | ${event} refused: ${ack.error?.code}: ${ack.error?.message}`);
        if (event === "snapshot") notify("warn", "Notify.SceneRefused", { reason: ack.error?.message ?? "?" });
      }
    });
  }

  sendSnapshot() {
    const scene = activeScene();
    if (!scene) return;
    this.sceneId = scene.id;
    const tokens = scene.tokens.contents;
    const actorIds = new Set(tokens.map((tk) => tk.actorId).filter((id) => typeof id === "string"));
    const actors = [...actorIds].map((id) => game.actors?.get(id)).filter((a) => a !== undefined).map((a) => actorData(a));
    for (const tk of tokens) this.positions.set(tk.id ?? "", placeOf(tk));
    const combat = sceneCombat(scene);
    if (combat) this.turns.set(combat.id ?? "", turnOf(combat));
    const regions = (scene.regions?.contents ?? []) // v12+
      .filter((r) => !isHoldRegion(r))
      .map((r) => ({ _id: r.id, name: r.name, shapes: plain(toObject(r).shapes ?? []), levels: toObject(r).levels ?? null }));
    this.send("snapshot", {
      scene: { _id: scene.id, name: scene.name, grid: gridData(scene), ...dimensionsOf(scene) },
      tokens: tokens.map((tk) => toObject(tk)),
      combat: combat ? combatData(combat) : null,
      users: (game.users?.contents ?? []).map((u) => ({ _id: u.id, name: u.name, role: u.role })),
      actors,
      regions,
      env: { foundry: game.version, generation: game.release?.generation, system: game.system?.id, systemVersion: game.system?.version },
    });
  }

  // -- commands -------------------------------------------------------------------------------
  /** @param {Command} msg @param {((ack: CommandAck) => void) | undefined} ack */
  onCommand(msg, ack) {
    const reply = typeof ack === "function" ? ack : () => {};
    this.chain = this.chain.then(async () => {
      if (!msg || typeof msg.seq !== "number" || typeof msg.op !== "string") {
        reply({ ok: false, error: { code: "bad_command", message: "A command needs a seq and an op." } });
        return;
      }
      if (this.lastSeq !== null && msg.seq <= this.lastSeq) {
        reply({ ok: true, duplicate: true });
        return;
      }
      try {
        const result = await this.apply(msg);
        this.setSeq(msg.seq);
        reply(result ? { ok: true, ...result } : { ok: true });
      } catch (e) {
        this.setSeq(msg.seq); // a refused command is reported, not retried
        console.warn(`vttbridge | command ${msg.seq} ${msg.op} failed:`, e);
        const err = /** @type {{code?: string, message?: string}} */ (e);
        reply({ ok: false, error: { code: err.code ?? "apply_failed", message: String(err.message ?? e) } });
      }
    });
    return this.chain;
  }

  /** @param {number} seq */
  setSeq(seq) {
    if (this.lastSeq !== null && seq <= this.lastSeq) return;
    this.lastSeq = seq;
    try {
      if (this.seqKey) globalThis.localStorage?.setItem(this.seqKey, String(seq));
    } catch {
      /* private mode: the server re-sends from its own record */
    }
  }

  /** @param {Command} msg @returns {Promise<Record<string, unknown> | null>} */
  async apply(msg) {
    const data = /** @type {Record<string, any>} */ (msg.data ?? {});
    /** @type {Options & {vttbridge: Mark}} */
    const options = { ...(msg.options ?? {}), [FLAG]: { ...(markOf(msg.options) ?? {}), seq: msg.seq } };
    switch (msg.op) {
      case "ChatMessage.create": {
        const { whisper, flags, ...rest } = data;
        const message = { ...rest, whisper: whisperIds(whisper), flags: { ...(flags ?? {}), [FLAG]: { ...(flags?.[FLAG] ?? {}), seq: msg.seq } } };
        await ChatMessage.implementation.create(/** @type {never} */ (message), /** @type {never} */ (options));
        return null;
      }
      case "Token.update":
        return this.applyTokenUpdate(data, options);
      case "Combatant.update":
        return this.applyCombatant(data, options);
      case "Combat.update": {
        const combat = findCombat(data._id);
        if (!combat) throw new CommandError("no_combat", "There is no combat to update.");
        /** @type {{round?: number, turn?: number}} */
        const update = {};
        if (data.round !== undefined) update.round = data.round;
        let turn = data.turn;
        if (data.tokenId) {
          const i = combat.turns.findIndex((c) => c.tokenId === data.tokenId);
          if (i >= 0) turn = i;
        }
        if (turn !== undefined && turn !== null) update.turn = turn;
        await combat.update(update, /** @type {never} */ (options));
        return null;
      }
      case "Combat.delete": {
        const combat = findCombat(data._id);
        if (combat) await combat.delete(/** @type {never} */ (options));
        return null;
      }
      case "Scene.update": {
        const scene = (data._id && game.scenes?.get(data._id)) || activeScene();
        if (!scene) throw new CommandError("no_scene", "There is no scene to update.");
        const { _id, ...update } = data;
        await scene.update(update, /** @type {never} */ (options));
        if (regionHolds() && update.flags?.[FLAG]?.watch !== undefined) await syncHoldRegions(scene, options);
        return null;
      }
      case "Actor.update":
        return this.applyActorUpdate(data, options);
      case "Actor.toggleStatusEffect":
        return this.applyStatuses(data, options);
      case "User.query":
        return this.applyQuery(/** @type {PromptCommand} */ (data), msg.seq);
      default:
        throw new CommandError("unknown_op", `This module does not know the command ${msg.op}.`);
    }
  }

  /** @param {Record<string, any>} data @param {Options & {vttbridge: Mark}} options */
  async applyTokenUpdate(data, options) {
    const scene = (data.sceneId && game.scenes?.get(data.sceneId)) || activeScene();
    const token = scene?.tokens.get(data._id);
    if (!token) throw new CommandError("unknown_token", `No token ${data._id} on the scene.`);
    const { _id, sceneId, ...update } = data;
    const holdId = options[FLAG].hold;
    if (holdId) {
      const hold = this.holds.get(holdId);
      if (hold) {
        this.closeHold(hold);
        if (hold.movementId) {
          await this.releasePaused(hold, token, options[FLAG].moved ? null : update, options);
          return { hold: holdId };
        }
        // the move as the player dropped it, or where the rules put the token instead
        const change = options[FLAG].moved ? hold.changes : update;
        await token.update(change, /** @type {never} */ (options));
        return { hold: holdId };
      }
      if (this.closedHolds.has(holdId)) return { hold: holdId, skipped: "the move already went through" };
    }
    await token.update(update, /** @type {never} */ (options));
    if ("x" in update || "y" in update) this.positions.set(token.id ?? "", placeOf(token));
    return null;
  }

  /**
   * v13+: the end of a paused movement. `elsewhere` null: the rules let it through, it resumes
   * (the mover's client goes on along its path); else it stops where it is paused and the token
   * goes where the rules put it, if that is somewhere else.
   * @param {Hold} hold @param {TokenDocument} token @param {{x?: number, y?: number} | null} elsewhere
   * @param {Options} options
   */
  async releasePaused(hold, token, elsewhere, options) {
    if (!hold.movementId) return;
    if (elsewhere === null) {
      token.resumeMovement(hold.movementId, hold.id);
      return;
    }
    stopMovement(token, hold.movementId);
    const { x = token.x, y = token.y } = elsewhere;
    if (x !== token.x || y !== token.y) await token.update({ x, y }, /** @type {never} */ ({ ...options, animate: false }));
  }

  /** @param {string | undefined} sceneId @param {string} tokenId @returns {TokenDocument} */
  findToken(sceneId, tokenId) {
    const scene = (sceneId && game.scenes?.get(sceneId)) || activeScene();
    const token = scene?.tokens.get(tokenId);
    if (!token) throw new CommandError("unknown_token", `No token ${tokenId} on the scene.`);
    return token;
  }

  /**
   * The rules' changes to a sheet. An unlinked token's are its own: its synthetic actor
   * (TokenDocument#actor) keeps them in the token's delta. Marked as ours, so the updateActor
   * hook that follows is not sent back.
   * @param {Record<string, any>} data @param {Options} options
   */
  async applyActorUpdate(data, options) {
    const actor = data.tokenId ? this.findToken(data.sceneId, data.tokenId).actor : game.actors?.get(data._id);
    if (!actor) throw new CommandError("unknown_actor", `No actor ${data._id ?? data.tokenId}.`);
    await actor.update(data.update ?? {}, /** @type {never} */ (options));
    return null;
  }

  /**
   * The conditions the rules put on a character, on its token (effects.js).
   * @param {Record<string, any>} data @param {Options} options
   */
  async applyStatuses(data, options) {
    const token = this.findToken(data.sceneId, data.tokenId);
    for (const s of /** @type {StatusToggle[]} */ (data.statuses ?? [])) {
      statusEffect(s);
      await setStatus(token, s, options);
    }
    return null;
  }

  /**
   * A rules question (prompts.js): v13+ a query to the player's client (a dialog; the GM's own
   * here), answered by an `answer` event; else, or for a player who cannot be queried, the
   * whisper with answer buttons. The command is done once the question is out.
   * @param {PromptCommand} data @param {number} seq
   */
  async applyQuery(data, seq) {
    const user = data.userId ? game.users?.get(data.userId) : game.users?.activeGM;
    if (!queriesApi() || !user?.active) {
      const chat = { ...data.fallback, whisper: whisperIds(data.fallback.whisper) };
      chat.flags = { ...(chat.flags ?? {}), [FLAG]: { ...(chat.flags?.[FLAG] ?? {}), seq } };
      await ChatMessage.implementation.create(/** @type {never} */ (chat));
      return { asked: "chat" };
    }
    const question = { prompt: data.prompt, question: data.question, options: data.options, default: data.default, timeout: data.timeout ?? null, token: data.token ?? null };
    const timeout = data.timeout ? (data.timeout + QUERY_SLACK_S) * 1000 : undefined;
    const asked = user.isSelf ? askDialog(question) : user.query(QUERY, question, timeout ? { timeout } : {});
    asked.then(
      (option) => {
        if (typeof option === "string") this.send("answer", { userId: user.id, prompt: data.prompt, option });
      },
      () => {}, // not answered in time: the bridge applies the prompt's default
    );
    return { asked: user.id };
  }

  /** @param {Record<string, any>} data @param {Options} options */
  async applyCombatant(data, options) {
    const combat = findCombat(data.combatId);
    const sceneId = this.sceneId ?? activeScene()?.id ?? null;
    const combatant = combat && (data._id ? combat.combatants.get(data._id) : combat.combatants.find((c) => c.tokenId === data.tokenId));
    if (combatant) {
      await combatant.update({ initiative: data.initiative }, /** @type {never} */ (options));
      return null;
    }
    const scene = sceneId ? game.scenes?.get(sceneId) : undefined;
    const token = scene?.tokens.get(data.tokenId);
    const entry = { tokenId: data.tokenId, sceneId, actorId: token?.actorId, initiative: data.initiative };
    if (combat) {
      await combat.createEmbeddedDocuments("Combatant", [/** @type {never} */ (entry)], /** @type {never} */ (options));
      return null;
    }
    // the rules started a combat the tracker does not show yet
    await Combat.implementation.create(/** @type {never} */ ({ scene: sceneId, active: true, combatants: [entry] }), /** @type {never} */ (options));
    return null;
  }

  // -- held moves -----------------------------------------------------------------------------
  /**
   * Hold a watched move until the bridge answers (see sdk/holds.py).
   * @param {Hold} h
   */
  async hold(h) {
    h.closed = false;
    this.holds.set(h.id, h);
    await null; // let the pre-update hook return (and Foundry drop the held change) first
    if (!this.connected || !this.socket) {
      this.fallback(h, "Hold.NotConnected");
      return;
    }
    if (h.movementId) {
      this.heldMoves.set(h.movementId, h.id);
      if (this.heldMoves.size > CLOSED_HOLDS_KEPT) this.heldMoves.delete(this.heldMoves.keys().next().value ?? "");
    }
    const scene = game.scenes?.get(h.sceneId);
    const payload = {
      id: h.id,
      userId: h.userId,
      sceneId: h.sceneId,
      token: h.token,
      changes: h.changes,
      ...(h.waypoints ? { waypoints: h.waypoints } : {}),
      grid: scene ? gridData(scene) : undefined,
      hold: { id: h.id, budget_ms: h.budget },
      systemId: game.system?.id,
    };
    /** @type {CommandAck} */
    let ack;
    try {
      ack = await this.socket.timeout(h.budget).emitWithAck("preUpdateToken", payload);
    } catch {
      this.fallback(h, "Hold.NoAnswer", { seconds: (h.budget / 1000).toFixed(1) });
      return;
    }
    if (h.closed) return; // released before the ack arrived
    if (!ack?.ok) {
      // the bridge will not rule on it (no holds script, an unknown token...): the move goes
      // through quietly and is reported as an ordinary move (a refused id is not remembered)
      console.warn(`vttbridge | held move refused: ${ack?.error?.message}`);
      this.closeHold(h);
      await letThrough(h);
      return;
    }
    h.timer = setTimeout(() => this.fallback(h, "Hold.NoRuling"), h.maxHold);
  }

  /** @param {Hold} h */
  closeHold(h) {
    h.closed = true;
    if (h.timer) clearTimeout(h.timer);
    this.holds.delete(h.id);
    this.closedHolds.add(h.id);
    if (this.closedHolds.size > CLOSED_HOLDS_KEPT) this.closedHolds.delete(this.closedHolds.values().next().value ?? "");
  }

  /**
   * The bridge did not rule in time: the move goes through and is reported as completed,
   * under the held event's id (whichever reaches the bridge first counts).
   * @param {Hold} h @param {string} why an i18n key (VTTBRIDGE.Hold.*) @param {Record<string, string | number>} [data]
   */
  async fallback(h, why, data = {}) {
    if (h.closed) return;
    this.closeHold(h);
    await letThrough(h);
    await whisperGMs("Hold.WentThrough", { why: t(why, data), name: String(h.token?.name ?? t("Hold.AToken")) }, "hold-fallback");
  }

  // -- forwarded hooks ------------------------------------------------------------------------
  /**
   * @param {TokenDocument} doc @param {Record<string, any>} changed @param {Options} options @param {string} userId
   */
  onUpdateToken(doc, changed, options, userId) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = markOf(options);
    const before = this.positions.get(doc.id ?? "");
    const moved = "x" in changed || "y" in changed || "level" in changed;
    if (moved) this.positions.set(doc.id ?? "", placeOf(doc));
    if (ownWrite(mark)) return;
    if (/** @type {{_movement?: Record<string, unknown>}} */ (options)?._movement?.[doc.id ?? ""]) {
      // v13+: a movement's leg; moveToken forwards it with its path
      changed = { ...changed };
      for (const k of ["x", "y", "elevation", "width", "height", "shape", "rotation", "level"]) delete changed[k];
    }
    const keys = ["x", "y", "level", "name", "hidden", "disposition", "actorId", "actorLink", "delta", "actorData"];
    if (!keys.some((k) => k in changed)) return;
    /** @type {Record<string, unknown>} */
    const payload = {
      userId,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: plain(changed),
      options: { diff: options?.diff, animate: options?.animate },
      grid: gridData(doc.parent),
    };
    if (mark?.fallback) payload.id = mark.fallback; // the held move's id: never applied twice
    if (before && moved) payload.origin = before;
    this.send("updateToken", payload);
  }

  /**
   * v13+: a completed leg of a movement, with its path and how each waypoint was moved. Legs
   * of a held movement resumed later go under the hold's id: the bridge has applied it. On v14
   * the leg that enters a hold region is left to the hold (the mover's client sends it whole).
   * @param {TokenDocument} doc @param {MovementV14} movement @param {Options} operation @param {User} user
   */
  onMoveToken(doc, movement, operation, user) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = markOf(operation);
    if (ownWrite(mark)) return;
    const size = gridSize(doc.parent);
    const held = [movement.id, ...(movement.chain ?? [])].map((id) => this.heldMoves.get(id)).find(Boolean);
    if (!held && !mark?.fallback && regionHolds() && enteredHold(doc, movement)) return;
    const points = explicitWaypoints(movement.passed?.waypoints ?? []);
    const origin = movement.origin ?? this.positions.get(doc.id ?? "");
    const start = cellOf(origin.x, origin.y, size, origin.width ?? doc.width ?? 1, origin.height ?? doc.height ?? 1);
    const end = cellOf(doc.x, doc.y, size, doc.width ?? 1, doc.height ?? 1);
    const level = levelOf(doc);
    if (start[0] === end[0] && start[1] === end[1] && (origin.level ?? null) === level && points.every((w) => sameCell(w, origin, size, doc))) return;
    const payload = {
      userId: user?.id,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: { x: doc.x, y: doc.y, ...(level ? { level } : {}) },
      options: {},
      origin: { x: origin.x, y: origin.y, ...(origin.level ? { level: origin.level, elevation: origin.elevation } : {}) },
      waypoints: points,
      grid: gridData(doc.parent),
      ...(mark?.fallback || held ? { id: mark?.fallback ?? held } : {}), // never applied twice
    };
    this.send("updateToken", payload);
  }

  /** @param {ChatMessage} msg @param {Options} options @param {string} userId */
  onChat(msg, options, userId) {
    if (msg.getFlag(MODULE_ID, "bridge") || markOf(options)) return;
    this.send("createChatMessage", { userId, message: toObject(msg) });
  }

  /** @param {Combat} combat @param {Record<string, unknown>} changed @param {Options} options @param {string} userId */
  onUpdateCombat(combat, changed, options, userId) {
    const prior = this.turns.get(combat.id ?? "") ?? null;
    this.turns.set(combat.id ?? "", turnOf(combat));
    if (markOf(options)) return;
    if (!("turn" in changed) && !("round" in changed)) return;
    const sceneId = sceneIdOf(combat);
    if (sceneId && sceneId !== this.sceneId) return;
    this.send("updateCombat", { userId, changes: plain(changed), combat: combatData(combat), prior });
  }

  /** @param {Combat} combat @param {Options} options @param {string} userId */
  onDeleteCombat(combat, options, userId) {
    this.turns.delete(combat.id ?? "");
    if (markOf(options)) return;
    this.send("deleteCombat", { userId, combat: { _id: combat.id, round: combat.round ?? 0 } });
  }

  /**
   * @param {"createCombatant" | "updateCombatant" | "deleteCombatant"} event @param {Combatant} combatant
   * @param {Record<string, unknown>} changed @param {Options} options @param {string} userId
   */
  onCombatant(event, combatant, changed, options, userId) {
    if (markOf(options)) return;
    if (event === "updateCombatant" && !("initiative" in changed)) return;
    if (combatant.sceneId && combatant.sceneId !== this.sceneId) return;
    this.send(event, { userId, combatId: combatant.parent?.id, combatant: toObject(combatant), changes: plain(changed) });
  }

  /** @param {Actor} actor @param {Record<string, unknown>} changed @param {Options} options @param {string} userId */
  onUpdateActor(actor, changed, options, userId) {
    if (markOf(options)) return;
    this.send("updateActor", { userId, actorUuid: actor.uuid, actor: { _id: actor.id, name: actor.name, type: actor.type }, changes: plain(changed) });
  }

  /** @param {Scene} scene @param {Record<string, unknown>} changed */
  onUpdateScene(scene, changed) {
    if ("active" in changed && scene.active) this.sendSnapshot();
    else if (scene.id === this.sceneId && ("grid" in changed || "regions" in changed)) this.sendSnapshot();
  }
}

/** @param {URL} url */
function isLoopback(url) {
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(url.hostname);
}

/** @param {TokenDocument} doc */
function placeOf(doc) {
  return { x: doc.x, y: doc.y, level: levelOf(doc), elevation: doc.elevation ?? 0 };
}

/** @param {Scene} scene */
function gridData(scene) {
  const g = scene.grid;
  if (g && typeof g === "object") return { type: g.type, size: g.size, distance: g.distance, units: g.units };
  return { size: gridSize(scene), distance: 5, units: "ft" };
}

/** @param {Combat} combat @returns {string | null} */
function sceneIdOf(combat) {
  const s = /** @type {unknown} */ (combat.scene);
  if (typeof s === "string") return s;
  return /** @type {{id?: string} | null} */ (s)?.id ?? /** @type {{scene?: string}} */ (combat._source)?.scene ?? null;
}

/** @param {Scene} scene @returns {Combat | null} */
function sceneCombat(scene) {
  const here = (game.combats?.contents ?? []).filter((c) => sceneIdOf(c) === scene.id);
  return here.find((c) => c.active) ?? here[0] ?? null;
}

/** @param {string | undefined} id @returns {Combat | null} */
function findCombat(id) {
  if (id) return game.combats?.get(id) ?? null;
  const scene = activeScene();
  return (scene && sceneCombat(scene)) ?? game.combat ?? null;
}

/** @param {Combat} combat */
function combatData(combat) {
  const data = toObject(combat);
  data.turns = combat.turns.map((c) => toObject(c));
  return data;
}

/** @param {Combat} combat */
function turnOf(combat) {
  const current = combat.turns[combat.turn ?? -1];
  return { round: combat.round, turn: combat.turn, tokenId: current?.tokenId ?? null, combatantId: current?.id ?? null };
}

/** @param {Actor} actor */
function actorData(actor) {
  const o = toObject(actor);
  return { _id: o._id ?? actor.id, name: o.name, type: o.type, system: o.system ?? {}, ownership: o.ownership ?? {}, flags: { [FLAG]: o.flags?.[FLAG] ?? {} } };
}

// -- held moves on every client -------------------------------------------------------------------

/** @type {Map<string, ReturnType<typeof setTimeout>>} hold id -> timer, on a player's client waiting for the GM */
const relayed = new Map();

/**
 * The common part of a hold made on this client.
 * @param {TokenDocument} doc @param {WatchFlag} watch
 */
function holdBase(doc, watch) {
  return {
    sceneId: doc.parent?.id ?? "",
    tokenId: doc.id ?? "",
    userId: game.user?.id ?? null,
    budget: Number(watch.budget_ms ?? 1500),
    maxHold: Number(watch.max_hold_ms ?? 90000),
  };
}

/** @param {Hold} h */
function sendHold(h) {
  if (bridge && isPrimaryGM()) bridge.hold(h);
  else relayHold(h);
}

/**
 * v11-v12: a watched move is held by cancelling its update.
 * @param {TokenDocument} doc @param {Record<string, any>} changes @param {Options} options @param {string} userId
 */
function onPreUpdateToken(doc, changes, options, userId) {
  if (movementApi()) return true; // v13+: movement hooks and regions hold moves
  if (markOf(options)) return true; // the bridge's own write, or a released hold
  if (userId && game.user && userId !== game.user.id) return true;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch) return true;
  if (!watchedMove(doc, changes, watch, gridSize(scene))) return true;
  if (!gmOnline()) return true; // nobody to rule on it: never hold
  sendHold({ ...holdBase(doc, watch), id: newId(), token: toObject(doc), changes: plain(changes) });
  return false;
}

// -- held moves, v13+: re-plan at preMoveToken, pause at moveToken (the mover's client) -----------

/** @type {Set<string>} movement ids this client paused for a hold */
const pausedHere = new Set();
const PAUSED_KEPT = 200;

/** @param {string} id */
function rememberPaused(id) {
  pausedHere.add(id);
  if (pausedHere.size > PAUSED_KEPT) pausedHere.delete(pausedHere.values().next().value ?? "");
}

/**
 * Where the move-hooks hold a path (cells, start first): the index of the step entering a watched
 * cell, or -1. On v14 a hold region holds a move that enters its cells and goes on (core splits
 * it there); the move-hooks keep the watches of every move, and a move that stops in the first
 * watched cell it enters (complete when it gets there: nothing left to pause).
 * @param {TokenDocument} doc @param {import("./geometry.js").Cell[]} cells
 * @param {WatchFlag} watch @param {(string | null)[]} levels
 * @param {boolean} whole the path is all that is left of the movement
 */
function hookEntry(doc, cells, watch, levels, whole) {
  if (!regionHolds()) return watchedEntry(doc, cells, watch, levels);
  const any = watchedEntry(doc, cells, watch, levels, (m) => m.cells === null);
  const cell = watchedEntry(doc, cells, watch, levels, (m) => m.cells !== null);
  if (cell >= 0 && (any < 0 || cell < any)) return whole && cell === cells.length - 1 ? cell : -1;
  return any;
}

/**
 * A leg about to enter a watched cell part-way: rejected, and the same drag made again with
 * a checkpoint in the cell before (its origin when the first step enters), where moveToken
 * pauses it. Movements are paused only between checkpoints, and this hook cannot add one.
 * @param {TokenDocument} doc @param {MovementV14} move @param {Options} options
 */
function onPreMoveToken(doc, move, options) {
  if (markOf(options)) return true; // ours: a release, a re-planned drag, a fallback
  if ((move.chain ?? []).some((id) => pausedHere.has(id))) return true; // the rest of a held move
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return true; // nothing watched, or nobody to rule: never hold
  const size = gridSize(scene);
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const passed = move.passed?.waypoints ?? [];
  const { cells, legs, levels } = stepCells([move.origin, ...passed], size, w, h);
  const at = hookEntry(doc, cells, watch, levels, !move.pending?.waypoints?.length);
  if (at < 0) return true;
  const leg = legs[at]; // the entering step ends the leg to passed[leg - 1]
  const stop = at === 1 && leg === 1 ? [move.origin.x, move.origin.y] : xyOf(cells[at - 1], size, w, h);
  const waypoints = [
    ...moveWaypoints(passed.slice(0, leg - 1)),
    { x: stop[0], y: stop[1], action: passed[leg - 1]?.action, snapped: true, explicit: false, checkpoint: true },
    ...moveWaypoints([...passed.slice(leg - 1), ...(move.pending?.waypoints ?? [])]),
  ];
  const { method, autoRotate, showRuler, constrainOptions } = move;
  setTimeout(() => doc.move(/** @type {never} */ (waypoints), /** @type {never} */ ({ method, autoRotate, showRuler, constrainOptions, [FLAG]: { split: true } })), 0);
  return false;
}

/**
 * Every client, after each leg: the GM's bridge forwards it; the mover's own client pauses its
 * movement where the next step enters a watched cell, and hands the rest to the bridge.
 * @param {TokenDocument} doc @param {MovementV14} movement @param {Options} operation @param {User} user
 */
function onMoveToken(doc, movement, operation, user) {
  if (bridge && bridge.sceneId !== null) bridge.onMoveToken(doc, movement, operation, user);
  if (isSelf(user)) maybePause(doc, movement);
}

/** @param {TokenDocument} doc @param {MovementV14} movement */
function maybePause(doc, movement) {
  const now = movementOf(doc);
  if (!now || now.id !== movement.id || now.state !== "pending") return;
  if ([movement.id, ...(movement.chain ?? [])].some((id) => pausedHere.has(id))) return; // released once
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return;
  const here = { x: doc._source.x, y: doc._source.y, level: levelOf(doc) };
  const pending = now.pending?.waypoints ?? [];
  const { cells, levels } = stepCells([here, ...pending], gridSize(scene), doc.width ?? 1, doc.height ?? 1);
  if (hookEntry(doc, cells, watch, levels, true) !== 1) return; // not the very next step
  const id = newId();
  if (!doc.pauseMovement(id)) return; // could not pause: it completes, and the Ready resolves then
  rememberPaused(now.id);
  const rest = explicitWaypoints(pending);
  const last = rest[rest.length - 1] ?? here;
  sendHold({
    ...holdBase(doc, watch),
    id,
    token: toObject(doc),
    changes: { x: last.x, y: last.y, ...(last.level ? { level: last.level } : {}) },
    waypoints: rest,
    movementId: now.id,
  });
}

/**
 * v14: the mover's client, when its token's movement has entered a hold region (the region
 * behavior's TOKEN_MOVE_IN): pause it there and hand the whole move, from where the entering
 * leg began, to the bridge, which judges the attempt.
 * @param {TokenDocumentV14} doc @param {MovementV14} movement
 */
function onEnterHold(doc, movement) {
  const now = movementOf(doc);
  if (!now || now.id !== movement.id || now.state !== "pending") return; // nothing left to hold
  if ([movement.id, ...(movement.chain ?? [])].some((id) => pausedHere.has(id))) return;
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!scene || !watch || !gmOnline()) return;
  const id = newId();
  if (!doc.pauseMovement(id)) return;
  rememberPaused(now.id);
  const origin = movement.origin;
  const path = explicitWaypoints([...(movement.passed?.waypoints ?? []), ...(now.pending?.waypoints ?? [])]);
  const last = path[path.length - 1];
  sendHold({
    ...holdBase(doc, watch),
    id,
    token: { ...toObject(doc), x: origin.x, y: origin.y, elevation: origin.elevation, ...(origin.level ? { level: origin.level } : {}) },
    changes: { x: last.x, y: last.y, ...(last.level ? { level: last.level } : {}) },
    waypoints: path,
    movementId: now.id,
  });
}

/** @param {Hold} h */
function relayHold(h) {
  game.socket?.emit(`module.${MODULE_ID}`, { type: "hold", hold: h });
  relayed.set(
    h.id,
    setTimeout(async () => {
      relayed.delete(h.id);
      await letThrough(h);
      await whisperGMs("Hold.WentThrough", { why: t("Hold.GmSilent"), name: String(h.token?.name ?? t("Hold.AToken")) }, "hold-fallback");
    }, h.budget + RELAY_SLACK_MS),
  );
}

/** @param {unknown} raw */
function onModuleSocket(raw) {
  if (!raw || typeof raw !== "object") return;
  const msg = /** @type {{type?: string, hold?: Hold, id?: string, sceneId?: string, tokenId?: string, movementId?: string}} */ (raw);
  if (msg.type === "hold" && msg.hold && bridge && isPrimaryGM()) {
    game.socket?.emit(`module.${MODULE_ID}`, { type: "holding", id: msg.hold.id });
    bridge.hold(msg.hold);
  } else if (msg.type === "holding" && msg.id) {
    const timer = relayed.get(msg.id);
    if (timer) {
      clearTimeout(timer);
      relayed.delete(msg.id);
    }
  } else if (msg.type === "stop" && msg.sceneId && msg.tokenId) {
    // the GM's client asks the mover to stop a paused movement (only the mover may)
    const token = game.scenes?.get(msg.sceneId)?.tokens.get(msg.tokenId);
    if (token && token.movement?.id === msg.movementId && isSelf(token.movement.user)) token.stopMovement();
  }
}

// -- answer buttons in the bridge's questions (every client) --------------------------------------

/** @param {ChatMessage} message @param {HTMLElement | JQuery} html v13+: the element; v11-v12: jQuery */
function wireAnswers(message, html) {
  const root = html instanceof HTMLElement ? html : html?.[0];
  if (!root?.querySelectorAll || !message.getFlag(MODULE_ID, "prompt")) return;
  for (const button of root.querySelectorAll("[data-vttbridge-answer]")) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      const answer = /** @type {HTMLElement} */ (button).dataset.vttbridgeAnswer;
      ChatMessage.implementation.create({ content: `!answer ${answer}`, speaker: { alias: game.user?.name } });
    });
  }
}

// -- wiring ---------------------------------------------------------------------------------------

/** @type {Bridge | null} */
export let bridge = null;

function refreshRole() {
  const primary = isPrimaryGM();
  if (primary && !bridge) {
    const made = new Bridge();
    bridge = made;
    /** @type {{vttbridge?: Bridge}} */ (globalThis).vttbridge = made;
    made.start();
  } else if (!primary && bridge) {
    bridge.stop();
    bridge = null;
  }
}

function restart() {
  if (bridge) bridge.start();
  else refreshRole();
}

function registerSettings() {
  const common = { config: true, restricted: true, onChange: () => restart() };
  const settings = game.settings;
  if (!settings) return;
  settings.register(MODULE_ID, "serverUrl", {
    ...common,
    name: "VTTBRIDGE.Settings.ServerUrl.Name",
    hint: "VTTBRIDGE.Settings.ServerUrl.Hint",
    scope: "world",
    type: String,
    default: "http://localhost:8787",
  });
  settings.register(MODULE_ID, "world", {
    ...common,
    name: "VTTBRIDGE.Settings.World.Name",
    hint: "VTTBRIDGE.Settings.World.Hint",
    scope: "world",
    type: String,
    default: "default",
  });
  settings.register(MODULE_ID, "ruler", {
    name: "VTTBRIDGE.Settings.Ruler.Name",
    hint: "VTTBRIDGE.Settings.Ruler.Hint",
    scope: "client",
    config: true,
    type: Boolean,
    default: true,
  });
  settings.register(MODULE_ID, "key", {
    ...common,
    name: "VTTBRIDGE.Settings.Key.Name",
    hint: "VTTBRIDGE.Settings.Key.Hint",
    scope: "client",
    type: String,
    default: "",
  });
}

/**
 * v13+: the Token Ruler coloured by the movement budget (ruler.js), over whatever ruler class
 * is configured (another module's included).
 */
function installRuler() {
  if (!movementApi() || !CONFIG.Token) return;
  const Base = /** @type {typeof foundry.canvas.placeables.tokens.TokenRuler | undefined} */ (CONFIG.Token.rulerClass) ?? foundry.canvas?.placeables?.tokens?.TokenRuler;
  if (typeof Base !== "function") return;
  CONFIG.Token.rulerClass = budgetRuler(Base, () => setting("ruler") !== false);
}

/** v14: the behavior type of the hold regions (holdregions.js). */
function installHoldRegions() {
  if (generation() < 14 || !CONFIG.RegionBehavior || !foundry.data?.regionBehaviors?.RegionBehaviorType) return;
  CONFIG.RegionBehavior.dataModels[HOLD_TYPE] = holdBehaviorClass(onEnterHold);
}

/**
 * @template {unknown[]} A
 * @param {(b: Bridge, ...args: A) => void} fn
 * @returns {(...args: A) => void}
 */
const forward = (fn) => (...args) => {
  if (bridge && bridge.sceneId !== null) fn(bridge, ...args);
};

Hooks.once("init", () => {
  registerSettings();
  installRuler();
  installHoldRegions();
  registerQueries();
});
Hooks.once("ready", () => {
  game.socket?.on(`module.${MODULE_ID}`, onModuleSocket);
  refreshRole();
});
Hooks.on("userConnected", () => refreshRole());
Hooks.on("preUpdateToken", (doc, changes, options, userId) => onPreUpdateToken(doc, changes, options, userId));
Hooks.on("preMoveToken", (doc, move, options) => onPreMoveToken(doc, move, options)); // v13+
Hooks.on("moveToken", (doc, movement, operation, user) => onMoveToken(doc, movement, operation, user)); // v13+
Hooks.on("updateToken", forward((b, doc, changed, options, userId) => b.onUpdateToken(doc, changed, options, userId)));
Hooks.on("createChatMessage", forward((b, msg, options, userId) => b.onChat(msg, options, userId)));
Hooks.on("updateCombat", forward((b, combat, changed, options, userId) => b.onUpdateCombat(combat, changed, options, userId)));
Hooks.on("deleteCombat", forward((b, combat, options, userId) => b.onDeleteCombat(combat, options, userId)));
Hooks.on("createCombatant", forward((b, c, options, userId) => b.onCombatant("createCombatant", c, {}, options, userId)));
Hooks.on("updateCombatant", forward((b, c, changed, options, userId) => b.onCombatant("updateCombatant", c, changed, options, userId)));
Hooks.on("deleteCombatant", forward((b, c, options, userId) => b.onCombatant("deleteCombatant", c, {}, options, userId)));
Hooks.on("updateActor", forward((b, actor, changed, options, userId) => b.onUpdateActor(actor, changed, options, userId)));
Hooks.on("updateScene", (scene, changed) => bridge?.onUpdateScene(scene, changed));
Hooks.on("renderChatMessage", wireAnswers); // v11, v12
Hooks.on("renderChatMessageHTML", wireAnswers); // v13+
