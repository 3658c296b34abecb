// Held moves on Foundry v14: a Region behavior type of this module on the watched cells.
//
// The bridge writes the moves it watches on the scene (flags.vttbridge.watch); on v14 the
// primary GM's client mirrors each watch with cells as a Region (shapes: the cells; levels: the
// watch's levels, so a token on another floor never enters it) carrying one behavior of this
// module's type, `vttbridge.hold`, which listens to TOKEN_MOVE_IN. Because a behavior listens to
// a token moving in, core splits a movement at the region's boundary: the leg that enters the
// region ends there, at a checkpoint, and the behavior's handler runs on every client. On the
// mover's own client (only the mover may pause a movement) it pauses the movement there
// (TokenDocument#pauseMovement with the hold's id as key) and hands the whole move, from where
// the entering leg began, to the bridge as held; the bridge resolves the Ready on the attempt
// and the movement resumes (#resumeMovement) or stops where the rules put the token.
//
// API reference, Version 14: CONST.REGION_EVENTS.TOKEN_MOVE_IN, RegionTokenMoveEventData
// ({token, movement}), RegionData (levels, shapes, behaviors), RegionBehaviorData (type, system),
// foundry.data.regionBehaviors.RegionBehaviorType (static events), module sub-types of
// RegionBehavior declared in module.json (documentTypes.RegionBehavior), CONFIG.RegionBehavior.
// dataModels.

import { MODULE_ID, t } from "./i18n.js";
import { cellOf, gridSize, stepCells, watchedEntry } from "./geometry.js";

/** @typedef {import("./geometry.js").Watch} Watch */
/** @typedef {import("./geometry.js").WatchFlag} WatchFlag */
/** @typedef {import("../types/foundry-v14").TokenDocumentV14} TokenDocumentV14 */
/** @typedef {import("../types/foundry-v14").MovementV14} MovementV14 */
/** @typedef {(doc: TokenDocumentV14, movement: MovementV14) => void} EnterHandler */

export const HOLD_TYPE = /** @type {const} */ (`${MODULE_ID}.hold`);

/** @type {EnterHandler | null} */
let onEnter = null;

/**
 * The behavior type (made at init, when Foundry's classes exist): its TOKEN_MOVE_IN handler
 * calls `handler` on the mover's client for a token the region's watch applies to.
 * @param {EnterHandler} handler
 */
export function holdBehaviorClass(handler) {
  onEnter = handler;
  /** @extends {foundry.data.regionBehaviors.RegionBehaviorType<{}>} */
  class HoldBehavior extends foundry.data.regionBehaviors.RegionBehaviorType {
    /** No settings of its own: the region's flags say whom it watches. */
    static defineSchema() {
      return {};
    }

    static events = { [CONST.REGION_EVENTS.TOKEN_MOVE_IN]: HoldBehavior.onMoveIn };

    /**
     * @this {HoldBehavior}
     * @param {RegionDocument.RegionEvent} event
     */
    static async onMoveIn(event) {
      if (!event.user?.isSelf || event.name !== CONST.REGION_EVENTS.TOKEN_MOVE_IN) return;
      const data = /** @type {{token: TokenDocumentV14, movement: MovementV14}} */ (/** @type {unknown} */ (event.data));
      const watch = this.region?.getFlag(MODULE_ID, "hold");
      if (!watch || !accepts(watch, data.token)) return;
      onEnter?.(data.token, data.movement);
    }
  }
  return HoldBehavior;
}

/** @param {{token?: string | null, exclude?: string | null}} watch @param {TokenDocument} doc */
function accepts(watch, doc) {
  if (watch.token && watch.token !== doc.id) return false;
  return !(watch.exclude && watch.exclude === doc.id);
}

/** @param {RegionDocument} region */
export function isHoldRegion(region) {
  return Boolean(region.getFlag(MODULE_ID, "hold"));
}

/**
 * The regions the watch flag asks for: one per watch with cells, a rectangle per cell.
 * @param {Scene} scene @param {WatchFlag | null | undefined} watch
 */
function wanted(scene, watch) {
  const size = gridSize(scene);
  return (watch?.watches ?? [])
    .filter((m) => m.cells?.length)
    .map((m) => {
      const key = JSON.stringify([m.cells, m.token ?? null, m.exclude ?? null, m.levels ?? null]);
      return {
        key,
        data: {
          name: t("Hold.RegionName"),
          shapes: (m.cells ?? []).map(([x, y]) => ({ type: "rectangle", x: x * size, y: y * size, width: size, height: size, rotation: 0, hole: false })),
          levels: m.levels?.length ? [...m.levels] : null,
          behaviors: [{ type: HOLD_TYPE, name: t("Hold.BehaviorName"), system: {} }],
          flags: { [MODULE_ID]: { hold: { key, token: m.token ?? null, exclude: m.exclude ?? null } } },
        },
      };
    });
}

/**
 * Make the scene's hold regions match its watch flag (the primary GM's client, v14): regions
 * no watch asks for go, missing ones are made. Returns how many changed.
 * @param {Scene} scene @param {Record<string, unknown>} options the write's options (ours)
 * @returns {Promise<number>}
 */
export async function syncHoldRegions(scene, options) {
  const want = wanted(scene, scene.getFlag(MODULE_ID, "watch"));
  const have = scene.regions.contents.filter(isHoldRegion);
  const keys = new Set(want.map((w) => w.key));
  const stale = have.filter((r) => !keys.has(r.getFlag(MODULE_ID, "hold")?.key ?? "")).map((r) => r.id ?? "");
  const kept = new Set(have.map((r) => r.getFlag(MODULE_ID, "hold")?.key));
  const fresh = want.filter((w) => !kept.has(w.key)).map((w) => w.data);
  if (stale.length) await scene.deleteEmbeddedDocuments("Region", stale, options);
  if (fresh.length) await scene.createEmbeddedDocuments("Region", /** @type {never} */ (fresh), options);
  return stale.length + fresh.length;
}

/**
 * Did this movement leg enter a cell a hold region watches for `doc`, at its end, with more to
 * go? Then the mover's client holds it (the behavior above), and the GM's bridge leaves the leg
 * to the hold. Worked out from the watch flag the regions mirror, as core splits the movement:
 * the leg ends in the first watched cell.
 * @param {TokenDocumentV14} doc @param {MovementV14} movement
 */
export function enteredHold(doc, movement) {
  const scene = doc.parent;
  const watch = scene?.getFlag(MODULE_ID, "watch");
  if (!scene || !watch?.watches?.length || !movement.pending?.waypoints?.length) return false;
  const size = gridSize(scene);
  const points = [movement.origin, ...movement.passed.waypoints];
  const { cells, levels } = stepCells(points, size, doc.width ?? 1, doc.height ?? 1);
  const at = watchedEntry(doc, cells, watch, levels, (m) => m.cells !== null);
  const end = cellOf(doc._source.x, doc._source.y, size, doc.width ?? 1, doc.height ?? 1);
  return at > 0 && cells[at][0] === end[0] && cells[at][1] === end[1];
}
