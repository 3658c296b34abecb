// vttbridge companion module for Foundry VTT v11-v13.
//
// On the primary active GM's client it opens a socket.io connection to a vttbridge server,
// forwards token, chat, combat and actor hooks, and applies the commands the server sends back
// (one Foundry call each, acknowledged): chat, token moves, initiative, turns, and what the rules
// change on a character: its sheet (Actor.update: the world actor of a linked token, the
// synthetic actor of an unlinked one) and the status effects on its token. On every client it
// holds the token moves the server watches (a Ready on the attempt), colours the Token Ruler by
// the rules' movement budget (v13+, ruler.js) and renders answer buttons in the server's
// questions.
//
// Moves, v11-v12: a move is an update of x/y. A watched one is held by returning false from
// preUpdateToken, and applied (or not) when the bridge answers.
//
// Moves, v13+ (API reference, Version 13: TokenDocument#move, #movement, #pauseMovement(key),
// #resumeMovement(movementId, key), #stopMovement; hookEvents.preMoveToken, which fires on the
// mover's own client and can only reject the whole movement, and hookEvents.moveToken(document,
// movement, operation, user), on every client after each update; TokenMovementOperation:
// origin, destination, passed / pending waypoints with their `action`, chain). A movement runs
// checkpoint to checkpoint, one update each, and can be paused only between them: preMoveToken
// sees a leg about to enter a watched cell and re-plans the drag once with a checkpoint where
// the token stands before that cell (the same path and waypoints); moveToken on the mover's
// client pauses the movement there (pauseMovement with the hold's id as key) and hands the rest
// of the path to the bridge; when the Ready resolves the bridge's answer resumes it
// (resumeMovement), or stops it where the rules put the token. The GM's client forwards every
// completed leg from moveToken with its path and each waypoint's action (a jump leg is judged
// by the FoE jump rule); the legs of a held move resumed later go under the hold's id, which
// the bridge has seen.
//
// Protocol: docs/protocol.md; hold protocol: sdk/holds.py (a built-in script of every
// world); budgets: sdk/budget.py.

import { io } from "socket.io-client";
import { cellOf, gridSize, stepCells, watchedEntry, watchedMove, xyOf } from "./geometry.js";
import { budgetRuler } from "./ruler.js";

export { RULER_COLORS, budgetTier, plannedLength } from "./ruler.js";
export { pathLength } from "./geometry.js";

export const MODULE_ID = "vttbridge";
export const VERSION = "0.1.0";
const NAMESPACE = "/foundry";
const PROTOCOL = 1;
const CLOSED_HOLDS_KEPT = 200;
const RELAY_SLACK_MS = 500;
const OUTBOX_MAX = 200;
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

function plain(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** The canvas size (scene plus padding, px), so the bridge can refuse positions off it. */
function dimensionsOf(scene) {
  const d = scene?.dimensions;
  return d?.width > 0 && d?.height > 0 ? { dimensions: { width: d.width, height: d.height } } : {};
}

function toObject(doc) {
  return typeof doc?.toObject === "function" ? doc.toObject() : plain(doc);
}

function hashText(text) {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h << 5) + h + text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function setting(key) {
  try {
    return game.settings.get(MODULE_ID, key);
  } catch {
    return undefined;
  }
}

/** v13+: tokens move through TokenDocument#move, with movement data and pausing. */
export function movementApi() {
  return Number(game.release?.generation ?? 0) >= 13;
}

function notify(level, text) {
  globalThis.ui?.notifications?.[level]?.(`vttbridge: ${text}`);
}

function docClass(name) {
  return globalThis.CONFIG?.[name]?.documentClass ?? globalThis[name];
}

function isPrimaryGM() {
  const active = game.users?.activeGM;
  if (active !== undefined) return Boolean(active?.isSelf ?? active?.id === game.user?.id);
  return Boolean(game.user?.isGM); // before v11
}

function activeScene() {
  return game.scenes?.active ?? globalThis.canvas?.scene ?? null;
}

function gmIds() {
  return (game.users?.filter?.((u) => u.isGM) ?? []).map((u) => u.id);
}

function whisperIds(list) {
  const out = [];
  for (const id of list ?? []) {
    if (id === "GM") {
      const gms = docClass("ChatMessage")?.getWhisperRecipients?.("GM") ?? [];
      out.push(...(gms.length ? gms.map((u) => u.id ?? u) : gmIds()));
    } else out.push(id);
  }
  return out;
}

/** Our own write (a command applied, a release): its hooks are not sent back. A fallback and
 * a re-planned drag are the player's moves, marked only so they are recognised. */
function ownWrite(mark) {
  return Boolean(mark) && !mark.fallback && !mark.split;
}

/** The last applied command seq kept in this browser, or null when there is none. */
function storedSeq(key) {
  try {
    const v = globalThis.localStorage?.getItem(key);
    if (v === null || v === undefined || v === "") return null;
    const n = Number(v);
    return Number.isInteger(n) && n >= 0 ? n : null;
  } catch {
    return null; // storage refused (private mode): the bridge resumes from its own record
  }
}

// -- v13 movement helpers ---------------------------------------------------------------------------

const WAYPOINT_KEYS = ["x", "y", "elevation", "width", "height", "shape", "action", "snapped", "explicit", "checkpoint"];

/** Waypoints as TokenDocument#move takes them (TokenMovementWaypoint), grid steps left out. */
function moveWaypoints(waypoints) {
  return waypoints
    .filter((w) => !w.intermediate)
    .map((w) => Object.fromEntries(WAYPOINT_KEYS.filter((k) => w[k] !== undefined).map((k) => [k, w[k]])));
}

/** The waypoints of a movement section the bridge reads: position and action. */
function explicitWaypoints(waypoints) {
  return waypoints.filter((w) => !w.intermediate).map((w) => ({ x: w.x, y: w.y, ...(w.action ? { action: w.action } : {}) }));
}

function sameCell(a, b, size, doc) {
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const ca = cellOf(a.x, a.y, size, a.width ?? w, a.height ?? h);
  const cb = cellOf(b.x, b.y, size, b.width ?? w, b.height ?? h);
  return ca[0] === cb[0] && ca[1] === cb[1];
}

function isSelf(user) {
  return Boolean(user?.isSelf ?? (user?.id && user.id === game.user?.id));
}

/** Stop a paused movement. Only its mover's client may (TokenDocument#stopMovement): another
 * client asks it over the module's socket. */
function stopMovement(token, movementId) {
  const m = token.movement;
  if (!m || m.id !== movementId) return;
  if (isSelf(m.user)) token.stopMovement?.();
  else game.socket?.emit?.(`module.${MODULE_ID}`, { type: "stop", sceneId: token.parent?.id, tokenId: token.id, movementId });
}

/** A held move nobody rules on (no answer, or the bridge would not hold it): it goes through as
 * the player made it. v11-v12: the update the hook held, marked with the hold's id (the bridge
 * applies that id once); v13: the paused movement resumes. */
async function letThrough(h) {
  const token = game.scenes?.get(h.sceneId)?.tokens?.get(h.tokenId);
  if (!token) return;
  if (h.movementId) {
    token.resumeMovement(h.movementId, h.id);
    return;
  }
  await token.update(h.changes, { animate: true, [FLAG]: { fallback: h.id } });
}

class CommandError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// -- the connection (primary GM only) -------------------------------------------------------------

export class Bridge {
  /** `connect`: socket.io-client's `io` (a test passes a stand-in socket's). */
  constructor({ io: connect = io } = {}) {
    this.io = connect;
    this.socket = null;
    this.sceneId = null;
    this.state = "idle"; // idle | connecting | connected | lost | refused
    this.everConnected = false;
    this.chain = Promise.resolve();
    this.holds = new Map(); // hold id -> {id, tokenId, sceneId, changes, ...}
    this.closedHolds = new Set();
    this.positions = new Map(); // token id -> {x, y}: a forwarded move's origin
    this.turns = new Map(); // combat id -> {round, turn, tokenId, combatantId}
    this.lastSeq = null; // the highest command seq applied; null: not known in this browser
    this.seqKey = null;
    this.outbox = new Map(); // event id -> {event, body}: not acknowledged yet, in order
    this.heldMoves = new Map(); // v13 movement id -> the id of the hold it was paused for
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
      notify("warn", "not linked: set the server URL, world and key in the module settings.");
      return false;
    }
    let target;
    try {
      target = new URL(url);
    } catch {
      notify("error", `the server URL ${url} is not a URL (e.g. http://localhost:8787).`);
      return false;
    }
    if (globalThis.location?.protocol === "https:" && target.protocol === "http:" && !isLoopback(target)) {
      notify("warn", "Foundry is served over HTTPS: the browser will block an http:// bridge. Use https:// (see the README).");
    }
    this.seqKey = `${MODULE_ID}.lastSeq.${game.world?.id ?? "world"}.${world}.${hashText(`${target.origin}|${key}`)}`;
    this.lastSeq = storedSeq(this.seqKey);
    const base = target.pathname.replace(/\/+$/, "");
    this.state = "connecting";
    this.socket = this.io(target.origin + NAMESPACE, {
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
    this.socket.on("connect", () => this.onConnect());
    this.socket.on("disconnect", (reason) => this.onDisconnect(reason));
    this.socket.on("connect_error", (err) => this.onConnectError(err));
    this.socket.on("command", (msg, ack) => this.onCommand(msg, ack));
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
    notify("info", recovered ? "connection recovered." : `linked to ${setting("serverUrl")} (world ${setting("world")}).`);
    // events whose ack never came (lost with the connection) or made while away go again,
    // in order and under their own ids (the bridge applies an id once); a fresh scene follows
    for (const [id, e] of this.outbox) if (e.event === "snapshot") this.outbox.delete(id);
    for (const e of [...this.outbox.values()]) this.emitQueued(e);
    this.sendSnapshot();
  }

  onDisconnect(reason) {
    if (!this.socket) return; // stopped on purpose
    if (this.state === "connected") notify("warn", `connection lost (${reason}); retrying...`);
    this.state = "lost";
    if (reason === "io server disconnect") {
      // the server closed us: socket.io does not retry by itself
      setTimeout(() => this.socket?.connect(), 2000);
    }
    for (const h of [...this.holds.values()]) this.fallback(h, "the vttbridge connection was lost");
  }

  onConnectError(err) {
    const code = err?.data?.code;
    if (FINAL_REFUSALS.includes(code)) {
      notify("error", `the server refused the link: ${err.message}`);
      this.state = "refused";
      this.socket?.disconnect(); // retry only after the settings change
      return;
    }
    if (this.state !== "lost" && this.state !== "retrying") notify("warn", `cannot reach ${setting("serverUrl")} (${err?.message ?? err}); retrying...`);
    this.state = "retrying";
    // a refusal that passes (shutting down, too many attempts...): socket.io does not retry
    // a refused connect by itself; wait as long as the bridge asks
    const wait = Math.max(3, Number(err?.data?.retry_after) || 0) * 1000;
    if (err?.data) setTimeout(() => this.socket && !this.socket.connected && this.socket.connect(), wait);
  }

  // -- outbound events ------------------------------------------------------------------------
  /** Send an event; it stays in the outbox until the bridge acknowledges it, and goes again
   * after a reconnect if its ack was lost (socket.io buffers only while disconnected). */
  send(event, payload) {
    if (!this.socket) return;
    const body = { id: newId(), systemId: game.system?.id, ...payload };
    const entry = { event, body };
    this.outbox.set(body.id, entry);
    if (this.outbox.size > OUTBOX_MAX) {
      const [oldest] = this.outbox.keys();
      this.outbox.delete(oldest); // the scene sent after the reconnect stands for it
      console.warn(`vttbridge | more than ${OUTBOX_MAX} events wait for the bridge; the oldest is dropped`);
    }
    if (this.socket.connected) this.emitQueued(entry);
  }

  emitQueued(entry) {
    const { event, body } = entry;
    this.socket.emit(event, body, (ack) => {
      this.outbox.delete(body.id);
      if (ack && !ack.ok) {
        console.warn(`vttbridge | ${event} refused: ${ack.error?.code}: ${ack.error?.message}`);
        if (event === "snapshot") notify("warn", `the server refused the scene: ${ack.error?.message}`);
      }
    });
  }

  sendSnapshot() {
    const scene = activeScene();
    if (!scene) return;
    this.sceneId = scene.id;
    const tokens = scene.tokens?.contents ?? [...(scene.tokens ?? [])];
    const actorIds = new Set(tokens.map((t) => t.actorId).filter(Boolean));
    const actors = [...actorIds]
      .map((id) => game.actors?.get(id))
      .filter(Boolean)
      .map((a) => actorData(a));
    for (const t of tokens) this.positions.set(t.id, { x: t.x, y: t.y });
    const combat = sceneCombat(scene);
    if (combat) this.turns.set(combat.id, turnOf(combat));
    const regions = (scene.regions?.contents ?? [...(scene.regions ?? [])]).map((r) => ({
      _id: r.id,
      name: r.name,
      shapes: plain(r.shapes ?? r._source?.shapes ?? []),
    }));
    this.send("snapshot", {
      scene: { _id: scene.id, name: scene.name, grid: gridData(scene), ...dimensionsOf(scene) },
      tokens: tokens.map((t) => toObject(t)),
      combat: combat ? combatData(combat) : null,
      users: (game.users?.contents ?? [...(game.users ?? [])]).map((u) => ({ _id: u.id, name: u.name, role: u.role })),
      actors,
      regions,
      env: { foundry: game.version, generation: game.release?.generation, system: game.system?.id, systemVersion: game.system?.version },
    });
  }

  // -- commands -------------------------------------------------------------------------------
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
        reply({ ok: false, error: { code: e.code ?? "apply_failed", message: String(e.message ?? e) } });
      }
    });
    return this.chain;
  }

  setSeq(seq) {
    if (this.lastSeq !== null && seq <= this.lastSeq) return;
    this.lastSeq = seq;
    try {
      globalThis.localStorage?.setItem(this.seqKey, String(seq));
    } catch {
      /* private mode: the server re-sends from its own record */
    }
  }

  async apply(msg) {
    const data = msg.data ?? {};
    const options = { ...(msg.options ?? {}) };
    options[FLAG] = { ...(options[FLAG] ?? {}), seq: msg.seq };
    switch (msg.op) {
      case "ChatMessage.create": {
        const { whisper, flags, ...rest } = data;
        const message = { ...rest, whisper: whisperIds(whisper), flags: { ...(flags ?? {}), [FLAG]: { ...(flags?.[FLAG] ?? {}), seq: msg.seq } } };
        await docClass("ChatMessage").create(message, options);
        return null;
      }
      case "Token.update":
        return this.applyTokenUpdate(data, options);
      case "Combatant.update":
        return this.applyCombatant(data, options);
      case "Combat.update": {
        const combat = findCombat(data._id);
        if (!combat) throw new CommandError("no_combat", "There is no combat to update.");
        const update = {};
        if (data.round !== undefined) update.round = data.round;
        let turn = data.turn;
        if (data.tokenId) {
          const i = (combat.turns ?? []).findIndex((c) => c.tokenId === data.tokenId);
          if (i >= 0) turn = i;
        }
        if (turn !== undefined && turn !== null) update.turn = turn;
        await combat.update(update, options);
        return null;
      }
      case "Combat.delete": {
        const combat = findCombat(data._id);
        if (combat) await combat.delete(options);
        return null;
      }
      case "Scene.update": {
        const scene = (data._id && game.scenes?.get(data._id)) || activeScene();
        if (!scene) throw new CommandError("no_scene", "There is no scene to update.");
        const { _id, ...update } = data;
        await scene.update(update, options);
        return null;
      }
      case "Actor.update":
        return this.applyActorUpdate(data, options);
      case "Actor.toggleStatusEffect":
        return this.applyStatuses(data);
      default:
        throw new CommandError("unknown_op", `This module does not know the command ${msg.op}.`);
    }
  }

  async applyTokenUpdate(data, options) {
    const scene = (data.sceneId && game.scenes?.get(data.sceneId)) || activeScene();
    const token = scene?.tokens?.get(data._id);
    if (!token) throw new CommandError("unknown_token", `No token ${data._id} on the scene.`);
    const { _id, sceneId, ...update } = data;
    const holdId = options[FLAG]?.hold;
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
        await token.update(change, options);
        return { hold: holdId };
      }
      if (this.closedHolds.has(holdId)) return { hold: holdId, skipped: "the move already went through" };
    }
    await token.update(update, options);
    if ("x" in update || "y" in update) this.positions.set(token.id, { x: token.x, y: token.y });
    return null;
  }

  /** v13: the end of a paused movement. `elsewhere` null: the rules let it through, it resumes
   * (the mover's client goes on along its path); else it stops where it is paused and the token
   * goes where the rules put it, if that is somewhere else. */
  async releasePaused(hold, token, elsewhere, options) {
    if (elsewhere === null) {
      token.resumeMovement(hold.movementId, hold.id);
      return;
    }
    stopMovement(token, hold.movementId);
    const { x = token.x, y = token.y } = elsewhere;
    if (x !== token.x || y !== token.y) await token.update({ x, y }, { ...options, animate: false });
  }

  findToken(sceneId, tokenId) {
    const scene = (sceneId && game.scenes?.get(sceneId)) || activeScene();
    const token = scene?.tokens?.get(tokenId);
    if (!token) throw new CommandError("unknown_token", `No token ${tokenId} on the scene.`);
    return token;
  }

  /** The rules' changes to a sheet. An unlinked token's are its own: its synthetic actor
   * (TokenDocument#actor) keeps them in the token's delta. Marked as ours, so the updateActor
   * hook that follows is not sent back. */
  async applyActorUpdate(data, options) {
    const actor = data.tokenId ? this.findToken(data.sceneId, data.tokenId).actor : game.actors?.get(data._id);
    if (!actor) throw new CommandError("unknown_actor", `No actor ${data._id ?? data.tokenId}.`);
    await actor.update(data.update ?? {}, options);
    return null;
  }

  /** The conditions the rules put on a character, as status effects on its token. */
  async applyStatuses(data) {
    const token = this.findToken(data.sceneId, data.tokenId);
    for (const s of data.statuses ?? []) await setStatus(token, statusEffect(s), Boolean(s.active));
    return null;
  }

  async applyCombatant(data, options) {
    const combat = findCombat(data.combatId);
    const sceneId = this.sceneId ?? activeScene()?.id;
    const combatant = combat && (data._id ? combat.combatants.get(data._id) : combat.combatants.find((c) => c.tokenId === data.tokenId));
    if (combatant) {
      await combatant.update({ initiative: data.initiative }, options);
      return null;
    }
    const scene = game.scenes?.get(sceneId);
    const token = scene?.tokens?.get(data.tokenId);
    const entry = { tokenId: data.tokenId, sceneId, actorId: token?.actorId, initiative: data.initiative };
    if (combat) {
      await combat.createEmbeddedDocuments("Combatant", [entry], options);
      return null;
    }
    // the rules started a combat the tracker does not show yet
    await docClass("Combat").create({ scene: sceneId, active: true, combatants: [entry] }, options);
    return null;
  }

  // -- held moves -----------------------------------------------------------------------------
  /** Hold a watched move until the bridge answers (see sdk/holds.py). */
  async hold(h) {
    h.closed = false;
    this.holds.set(h.id, h);
    await null; // let the pre-update hook return (and Foundry drop the held change) first
    if (!this.connected) {
      this.fallback(h, "vttbridge is not connected");
      return;
    }
    if (h.movementId) {
      this.heldMoves.set(h.movementId, h.id);
      if (this.heldMoves.size > CLOSED_HOLDS_KEPT) this.heldMoves.delete(this.heldMoves.keys().next().value);
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
    let ack;
    try {
      ack = await this.socket.timeout(h.budget).emitWithAck("preUpdateToken", payload);
    } catch {
      this.fallback(h, `vttbridge did not answer within ${(h.budget / 1000).toFixed(1)} s`);
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
    h.timer = setTimeout(() => this.fallback(h, "no ruling came in time"), h.maxHold);
  }

  closeHold(h) {
    h.closed = true;
    if (h.timer) clearTimeout(h.timer);
    this.holds.delete(h.id);
    this.closedHolds.add(h.id);
    if (this.closedHolds.size > CLOSED_HOLDS_KEPT) this.closedHolds.delete(this.closedHolds.values().next().value);
  }

  /** The bridge did not rule in time: the move goes through and is reported as completed,
   * under the held event's id (whichever reaches the bridge first counts). */
  async fallback(h, why) {
    if (h.closed) return;
    this.closeHold(h);
    const name = h.token?.name ?? "A token";
    await letThrough(h);
    await docClass("ChatMessage")?.create?.({
      content: `<p>${escapeHtml(`${why}: ${name}'s move went through. A Ready it sets off resolves now that the move is done.`)}</p>`,
      speaker: { alias: "vttbridge" },
      whisper: gmIds(),
      flags: { [FLAG]: { bridge: true, notice: "hold-fallback" } },
    });
  }

  // -- forwarded hooks ------------------------------------------------------------------------
  onUpdateToken(doc, changed, options, userId) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = options?.[FLAG];
    const before = this.positions.get(doc.id);
    if ("x" in changed || "y" in changed) this.positions.set(doc.id, { x: doc.x, y: doc.y });
    if (ownWrite(mark)) return;
    if (options?._movement?.[doc.id]) {
      // v13: a movement's leg; moveToken forwards it with its path
      changed = { ...changed };
      for (const k of ["x", "y", "elevation", "width", "height", "shape", "rotation"]) delete changed[k];
    }
    const keys = ["x", "y", "name", "hidden", "disposition", "actorId", "actorLink", "delta", "actorData"];
    if (!keys.some((k) => k in changed)) return;
    const payload = {
      userId,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: plain(changed),
      options: { diff: options?.diff, animate: options?.animate },
      grid: gridData(doc.parent),
    };
    if (mark?.fallback) payload.id = mark.fallback; // the held move's id: never applied twice
    if (before && ("x" in changed || "y" in changed)) payload.origin = before;
    this.send("updateToken", payload);
  }

  /** v13: a completed leg of a movement, with its path and how each waypoint was moved. Legs
   * of a held movement resumed later go under the hold's id: the bridge has applied it. */
  onMoveToken(doc, movement, operation, user) {
    if (doc.parent?.id !== this.sceneId) return;
    const mark = operation?.[FLAG];
    if (ownWrite(mark)) return;
    const size = gridSize(doc.parent);
    const points = explicitWaypoints(movement.passed?.waypoints ?? []);
    const origin = movement.origin ?? this.positions.get(doc.id);
    const start = cellOf(origin.x, origin.y, size, origin.width ?? doc.width ?? 1, origin.height ?? doc.height ?? 1);
    const end = cellOf(doc.x, doc.y, size, doc.width ?? 1, doc.height ?? 1);
    if (start[0] === end[0] && start[1] === end[1] && points.every((w) => sameCell(w, origin, size, doc))) return;
    const held = [movement.id, ...(movement.chain ?? [])].map((id) => this.heldMoves.get(id)).find(Boolean);
    const payload = {
      userId: user?.id,
      sceneId: doc.parent.id,
      token: toObject(doc),
      changes: { x: doc.x, y: doc.y },
      options: {},
      origin: { x: origin.x, y: origin.y },
      waypoints: points,
      grid: gridData(doc.parent),
    };
    if (mark?.fallback || held) payload.id = mark?.fallback ?? held; // never applied twice
    this.send("updateToken", payload);
  }

  onChat(msg, options, userId) {
    if (msg.flags?.[FLAG] || options?.[FLAG]) return;
    this.send("createChatMessage", { userId, message: toObject(msg) });
  }

  onUpdateCombat(combat, changed, options, userId) {
    const prior = this.turns.get(combat.id) ?? null;
    this.turns.set(combat.id, turnOf(combat));
    if (options?.[FLAG]) return;
    if (!("turn" in changed) && !("round" in changed)) return;
    const sceneId = sceneIdOf(combat);
    if (sceneId && sceneId !== this.sceneId) return;
    this.send("updateCombat", { userId, changes: plain(changed), combat: combatData(combat), prior });
  }

  onDeleteCombat(combat, options, userId) {
    this.turns.delete(combat.id);
    if (options?.[FLAG]) return;
    this.send("deleteCombat", { userId, combat: { _id: combat.id, round: combat.round ?? 0 } });
  }

  onCombatant(event, combatant, changedOrOptions, optionsOrUser, maybeUser) {
    const update = event === "updateCombatant";
    const changed = update ? changedOrOptions : {};
    const options = update ? optionsOrUser : changedOrOptions;
    const userId = update ? maybeUser : optionsOrUser;
    if (options?.[FLAG]) return;
    if (update && !("initiative" in changed)) return;
    if (combatant.sceneId && combatant.sceneId !== this.sceneId) return;
    this.send(event, { userId, combatId: combatant.parent?.id, combatant: toObject(combatant), changes: plain(changed) });
  }

  onUpdateActor(actor, changed, options, userId) {
    if (options?.[FLAG]) return;
    this.send("updateActor", { userId, actorUuid: actor.uuid, actor: { _id: actor.id, name: actor.name, type: actor.type }, changes: plain(changed) });
  }

  onUpdateScene(scene, changed) {
    if ("active" in changed && scene.active) this.sendSnapshot();
    else if (scene.id === this.sceneId && ("grid" in changed || "regions" in changed)) this.sendSnapshot();
  }
}

function isLoopback(url) {
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(url.hostname);
}

function gridData(scene) {
  const g = scene?.grid;
  if (g && typeof g === "object") return { type: g.type, size: g.size, distance: g.distance, units: g.units };
  return { size: gridSize(scene), distance: scene?.gridDistance ?? 5, units: scene?.gridUnits ?? "ft" };
}

function sceneIdOf(combat) {
  return combat.scene?.id ?? (typeof combat.scene === "string" ? combat.scene : null) ?? combat._source?.scene ?? null;
}

function sceneCombat(scene) {
  const combats = game.combats?.contents ?? [...(game.combats ?? [])];
  const here = combats.filter((c) => sceneIdOf(c) === scene.id);
  return here.find((c) => c.active) ?? here[0] ?? null;
}

function findCombat(id) {
  if (id) return game.combats?.get(id) ?? null;
  const scene = activeScene();
  return (scene && sceneCombat(scene)) ?? game.combat ?? null;
}

function combatData(combat) {
  const data = toObject(combat);
  data.turns = (combat.turns ?? []).map((c) => toObject(c));
  return data;
}

function turnOf(combat) {
  const current = combat.turns?.[combat.turn ?? -1];
  return { round: combat.round, turn: combat.turn, tokenId: current?.tokenId ?? null, combatantId: current?.id ?? null };
}

/** The status effect `id` as CONFIG.statusEffects holds it, registered first when Foundry does
 * not know it yet (the bridge's own: name and icon come with the command). */
export function statusEffect({ id, name, img }) {
  const config = globalThis.CONFIG ?? (globalThis.CONFIG = {});
  const v12 = Number(game.release?.generation ?? 12) >= 12;
  const entry = v12 ? { id, name: name ?? id, img } : { id, name: name ?? id, label: name ?? id, icon: img };
  const list = config.statusEffects ?? (config.statusEffects = []);
  if (Array.isArray(list)) {
    const known = list.find((e) => e.id === id);
    if (known) return known;
    if (name || img) list.push(entry);
    return entry;
  }
  if (!list[id] && (name || img)) list[id] = entry; // v14 keys them by id
  return list[id] ?? entry;
}

async function setStatus(token, status, active) {
  const actor = token.actor;
  if (typeof actor?.toggleStatusEffect === "function") return actor.toggleStatusEffect(status.id, { active }); // v12+
  if (typeof token.toggleActiveEffect === "function") return token.toggleActiveEffect(status, { active }); // v11
  if (typeof token.object?.toggleEffect === "function") return token.object.toggleEffect(status, { active });
  throw new CommandError("no_status_effects", "This Foundry version cannot toggle status effects.");
}

function actorData(actor) {
  const o = toObject(actor);
  return { _id: o._id ?? actor.id, name: o.name, type: o.type, system: o.system ?? {}, ownership: o.ownership ?? {}, flags: { [FLAG]: o.flags?.[FLAG] ?? {} } };
}

// -- held moves on every client -------------------------------------------------------------------

const relayed = new Map(); // hold id -> timer, on a player's client waiting for the GM

function onPreUpdateToken(doc, changes, options, userId) {
  if (movementApi()) return true; // v13: preMoveToken and moveToken hold moves
  if (options?.[FLAG]) return true; // the bridge's own write, or a released hold
  if (userId && game.user && userId !== game.user.id) return true;
  const scene = doc.parent;
  const watch = scene?.flags?.[FLAG]?.watch;
  if (!watch?.watches?.length) return true;
  if (!watchedMove(toObject(doc), changes, watch, gridSize(scene))) return true;
  const gmOnline = game.users?.activeGM ?? game.users?.find?.((u) => u.isGM && u.active);
  if (!gmOnline) return true; // nobody to rule on it: never hold
  const h = {
    id: newId(),
    sceneId: scene.id,
    tokenId: doc.id,
    token: toObject(doc),
    changes: plain(changes),
    userId: game.user?.id,
    budget: Number(watch.budget_ms ?? 1500),
    maxHold: Number(watch.max_hold_ms ?? 90000),
  };
  if (bridge && isPrimaryGM()) {
    bridge.hold(h);
  } else {
    relayHold(h);
  }
  return false;
}

// -- held moves, v13+: re-plan at preMoveToken, pause at moveToken (the mover's client) -----------

const pausedHere = new Set(); // movement ids this client paused for a hold
const PAUSED_KEPT = 200;

function watchOf(scene) {
  const watch = scene?.flags?.[FLAG]?.watch;
  return watch?.watches?.length ? watch : null;
}

function gmOnline() {
  return Boolean(game.users?.activeGM ?? game.users?.find?.((u) => u.isGM && u.active));
}

/** A leg about to enter a watched cell part-way: rejected, and the same drag made again with
 * a checkpoint in the cell before (its origin when the first step enters), where moveToken
 * pauses it. Movements are paused only between checkpoints, and this hook cannot add one. */
function onPreMoveToken(doc, move, options) {
  if (options?.[FLAG]) return true; // ours: a release, a re-planned drag, a fallback
  if ((move.chain ?? []).some((id) => pausedHere.has(id))) return true; // the rest of a held move
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!watch || !gmOnline()) return true; // nothing watched, or nobody to rule: never hold
  const size = gridSize(scene);
  const w = doc.width ?? 1;
  const h = doc.height ?? 1;
  const passed = move.passed?.waypoints ?? [];
  const { cells, legs } = stepCells([move.origin, ...passed], size, w, h);
  const at = watchedEntry(toObject(doc), cells, watch);
  if (at < 0) return true;
  const leg = legs[at]; // the entering step ends the leg to passed[leg - 1]
  const stop = at === 1 && leg === 1 ? [move.origin.x, move.origin.y] : xyOf(cells[at - 1], size, w, h);
  const waypoints = [
    ...moveWaypoints(passed.slice(0, leg - 1)),
    { x: stop[0], y: stop[1], action: passed[leg - 1]?.action, snapped: true, explicit: false, checkpoint: true },
    ...moveWaypoints([...passed.slice(leg - 1), ...(move.pending?.waypoints ?? [])]),
  ];
  const { method, autoRotate, showRuler, constrainOptions } = move;
  setTimeout(() => doc.move(waypoints, { method, autoRotate, showRuler, constrainOptions, [FLAG]: { split: true } }), 0);
  return false;
}

/** Every client, after each leg: the GM's bridge forwards it; the mover's own client pauses its
 * movement where the next step enters a watched cell, and hands the rest to the bridge. */
function onMoveToken(doc, movement, operation, user) {
  if (bridge && bridge.sceneId !== null) bridge.onMoveToken(doc, movement, operation, user);
  if (isSelf(user)) maybePause(doc, movement);
}

function maybePause(doc, movement) {
  const now = doc.movement;
  if (!now || now.id !== movement.id || now.state !== "pending") return;
  if ([movement.id, ...(movement.chain ?? [])].some((id) => pausedHere.has(id))) return; // released once
  const scene = doc.parent;
  const watch = watchOf(scene);
  if (!watch || !gmOnline()) return;
  const here = { x: doc._source?.x ?? doc.x, y: doc._source?.y ?? doc.y };
  const pending = now.pending?.waypoints ?? [];
  const { cells } = stepCells([here, ...pending], gridSize(scene), doc.width ?? 1, doc.height ?? 1);
  if (watchedEntry(toObject(doc), cells, watch) !== 1) return; // not the very next step
  const id = newId();
  if (!doc.pauseMovement(id)) return; // could not pause: it completes, and the Ready resolves then
  pausedHere.add(now.id);
  if (pausedHere.size > PAUSED_KEPT) pausedHere.delete(pausedHere.values().next().value);
  const last = explicitWaypoints(pending).at(-1) ?? here;
  const h = {
    id,
    sceneId: scene.id,
    tokenId: doc.id,
    token: toObject(doc),
    changes: { x: last.x, y: last.y },
    waypoints: explicitWaypoints(pending),
    movementId: now.id,
    userId: game.user?.id,
    budget: Number(watch.budget_ms ?? 1500),
    maxHold: Number(watch.max_hold_ms ?? 90000),
  };
  if (bridge && isPrimaryGM()) bridge.hold(h);
  else relayHold(h);
}

function relayHold(h) {
  game.socket?.emit?.(`module.${MODULE_ID}`, { type: "hold", hold: h });
  relayed.set(
    h.id,
    setTimeout(async () => {
      relayed.delete(h.id);
      await letThrough(h);
      await docClass("ChatMessage")?.create?.({
        content: `<p>${escapeHtml(`The GM's vttbridge did not answer: ${h.token?.name ?? "the token"}'s move went through. A Ready it sets off resolves now that the move is done.`)}</p>`,
        whisper: gmIds(),
        speaker: { alias: "vttbridge" },
        flags: { [FLAG]: { bridge: true, notice: "hold-fallback" } },
      });
    }, h.budget + RELAY_SLACK_MS),
  );
}

function onModuleSocket(msg) {
  if (!msg || typeof msg !== "object") return;
  if (msg.type === "hold" && bridge && isPrimaryGM()) {
    game.socket?.emit?.(`module.${MODULE_ID}`, { type: "holding", id: msg.hold?.id });
    bridge.hold(msg.hold);
  } else if (msg.type === "holding") {
    const timer = relayed.get(msg.id);
    if (timer) {
      clearTimeout(timer);
      relayed.delete(msg.id);
    }
  } else if (msg.type === "stop") {
    // the GM's client asks the mover to stop a paused movement (only the mover may)
    const token = game.scenes?.get(msg.sceneId)?.tokens?.get(msg.tokenId);
    if (token?.movement?.id === msg.movementId && isSelf(token.movement.user)) token.stopMovement();
  }
}

// -- answer buttons in the bridge's questions (every client) --------------------------------------

function wireAnswers(message, html) {
  const root = html?.[0] ?? html;
  if (!root?.querySelectorAll || !message?.flags?.[FLAG]?.prompt) return;
  for (const button of root.querySelectorAll("[data-vttbridge-answer]")) {
    button.addEventListener("click", (event) => {
      event.preventDefault();
      docClass("ChatMessage").create({ content: `!answer ${button.dataset.vttbridgeAnswer}`, speaker: { alias: game.user?.name } });
    });
  }
}

// -- wiring ---------------------------------------------------------------------------------------

export let bridge = null;

function refreshRole() {
  const primary = isPrimaryGM();
  if (primary && !bridge) {
    bridge = new Bridge();
    globalThis[MODULE_ID] = bridge;
    bridge.start();
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
  game.settings.register(MODULE_ID, "serverUrl", {
    ...common,
    name: "Server URL",
    hint: "Where vttbridge serve listens, e.g. http://localhost:8787 (https://... when Foundry is served over HTTPS).",
    scope: "world",
    type: String,
    default: "http://localhost:8787",
  });
  game.settings.register(MODULE_ID, "world", {
    ...common,
    name: "World",
    hint: "The bridge world this Foundry world links to ('default' unless you created another).",
    scope: "world",
    type: String,
    default: "default",
  });
  game.settings.register(MODULE_ID, "ruler", {
    name: "Colour the Token Ruler by the rules",
    hint: "Foundry v13+: while you drag a token in a fight, its path shows what the rules allow this turn: green within one action, yellow running, blue sneaking, red beyond (the move would be refused).",
    scope: "client",
    config: true,
    type: Boolean,
    default: true,
  });
  game.settings.register(MODULE_ID, "key", {
    ...common,
    name: "World key (GM only)",
    hint: "The GM key vttbridge printed for the world. Kept in this browser only, never shared with players.",
    scope: "client",
    type: String,
    default: "",
  });
}

const forward = (method) => (...args) => {
  if (bridge && bridge.sceneId !== null) bridge[method](...args);
};

/** v13+: the Token Ruler coloured by the movement budget (ruler.js), over whatever ruler class
 * is configured (another module's included). */
function installRuler() {
  const Base = globalThis.CONFIG?.Token?.rulerClass ?? globalThis.foundry?.canvas?.placeables?.tokens?.TokenRuler;
  if (typeof Base !== "function" || !globalThis.CONFIG?.Token) return;
  CONFIG.Token.rulerClass = budgetRuler(Base, () => setting("ruler") !== false);
}

Hooks.once("init", () => {
  registerSettings();
  installRuler();
});
Hooks.once("ready", () => {
  game.socket?.on?.(`module.${MODULE_ID}`, onModuleSocket);
  refreshRole();
});
Hooks.on("userConnected", () => refreshRole());
Hooks.on("preUpdateToken", onPreUpdateToken);
Hooks.on("preMoveToken", onPreMoveToken); // v13+
Hooks.on("moveToken", onMoveToken); // v13+
Hooks.on("updateToken", forward("onUpdateToken"));
Hooks.on("createChatMessage", forward("onChat"));
Hooks.on("updateCombat", forward("onUpdateCombat"));
Hooks.on("deleteCombat", forward("onDeleteCombat"));
Hooks.on("createCombatant", (...a) => forward("onCombatant")("createCombatant", ...a));
Hooks.on("updateCombatant", (...a) => forward("onCombatant")("updateCombatant", ...a));
Hooks.on("deleteCombatant", (...a) => forward("onCombatant")("deleteCombatant", ...a));
Hooks.on("updateActor", forward("onUpdateActor"));
Hooks.on("updateScene", (scene, changed) => bridge?.onUpdateScene(scene, changed));
Hooks.on("renderChatMessage", wireAnswers); // v11, v12
Hooks.on("renderChatMessageHTML", wireAnswers); // v13
