// The Token Ruler (Foundry v13+) coloured by the rules' movement budget of the dragged token.
//
// The bridge writes each token's budget this turn to `flags.vttbridge.budget` (every client
// sees a token's flags): feet left within one action (walk), within a run (both actions, 3x
// speed), at sneak speed while sneaking, whether it is the token's turn, and how the rules
// measure a path (the world's diagonal metric, the feet per cell). While a player drags, each
// segment and grid space of the planned path is coloured by the pace it needs, measured here
// the way the rules measure it: no round trip while dragging.
//
// Foundry's hooks (API reference, Version 13: foundry.canvas.placeables.tokens.TokenRuler,
// its protected `_getSegmentStyle(waypoint)` and `_getGridHighlightStyle(waypoint, offset)`,
// foundry.types.TokenRulerWaypoint with `stage` "passed" | "pending" | "planned" and
// `previous`; CONFIG.Token.rulerClass): the class is subclassed, so other modules' rulers
// installed before us still apply. v14 waypoints carry their `level`: a change of level along
// the path counts the height between the floors, as the rules count it.

import { cellOf, gridSize, pathLength } from "./geometry.js";

/** @typedef {import("../types/vttbridge").Budget} Budget */
/** @typedef {foundry.canvas.placeables.tokens.TokenRuler.Waypoint} RulerWaypoint */
/** @typedef {typeof foundry.canvas.placeables.tokens.TokenRuler} RulerClass */

export const RULER_COLORS = Object.freeze({
  walk: 0x33bc4e, // within one action
  run: 0xf1d836, // both actions: a run, up to 3x speed
  sneak: 0x3f7fd6, // sneak movement while sneaking
  over: 0xe72124, // beyond what the rules allow: the move would be refused
});

/**
 * The pace a path of `feet` needs under budget `b` (flags.vttbridge.budget).
 * @param {Budget} b @param {number} feet
 * @returns {keyof typeof RULER_COLORS}
 */
export function budgetTier(b, feet) {
  const within = (/** @type {number | null | undefined} */ limit) => limit !== null && limit !== undefined && feet <= limit + 1e-6;
  if (!b.turn) return "over";
  if (b.sneak !== null && b.sneak !== undefined) return within(b.sneak) ? "sneak" : "over";
  if (within(b.walk)) return "walk";
  if (within(b.run)) return "run";
  return "over";
}

/**
 * The length, as the rules will count it, of the planned path up to `waypoint`: from the
 * token's place (the first planned waypoint) through the explicit waypoints before it. A v13
 * movement reaches the bridge one leg (checkpoint to checkpoint) at a time, and the rules
 * measure each move on its own (the alternating 5/10 count starts again), so the legs are
 * measured apart and added up; a change of level adds the height climbed (v14).
 * @param {TokenDocument} doc
 * @param {import("../types/foundry-v14").Leveled<RulerWaypoint>} waypoint
 * @param {Budget} b
 * @returns {number}
 */
export function plannedLength(doc, waypoint, b) {
  const size = gridSize(doc.parent);
  const chain = [waypoint];
  for (let w = waypoint.previous; w && w.stage === "planned"; w = w.previous) {
    if (!w.intermediate || !w.previous || w.previous.stage !== "planned") chain.push(w);
  }
  chain.reverse();
  const w0 = doc.width ?? 1;
  const h0 = doc.height ?? 1;
  const cell = (/** @type {RulerWaypoint} */ p) => cellOf(p.x, p.y, size, p.width ?? w0, p.height ?? h0);
  const here = cellOf(doc._source.x, doc._source.y, size, w0, h0);
  let leg = [here];
  let total = 0;
  let level = /** @type {import("../types/foundry-v14").TokenDocumentV14} */ (doc).level ?? null;
  let elevation = doc._source.elevation ?? 0;
  chain.forEach((p, i) => {
    const c = cell(p);
    const last = leg[leg.length - 1];
    if (c[0] !== last[0] || c[1] !== last[1]) leg.push(c);
    const to = /** @type {import("../types/foundry-v14").Leveled<RulerWaypoint>} */ (p);
    if (to.level && level && to.level !== level) total += Math.abs((p.elevation ?? elevation) - elevation);
    level = to.level ?? level;
    elevation = p.elevation ?? elevation;
    if (p.checkpoint && i < chain.length - 1) {
      total += pathLength(leg, b.metric, b.distance ?? 5);
      leg = [c];
    }
  });
  return total + pathLength(leg, b.metric, b.distance ?? 5);
}

/**
 * A TokenRuler subclass of `Base` colouring the planned path by the token's budget.
 * @param {RulerClass} Base @param {() => boolean} [enabled]
 * @returns {RulerClass}
 */
export function budgetRuler(Base, enabled = () => true) {
  return class VttbridgeTokenRuler extends Base {
    /** @param {RulerWaypoint} waypoint */
    _getSegmentStyle(waypoint) {
      const style = super._getSegmentStyle(waypoint);
      const color = this.vttbridgeColor(waypoint);
      if (color !== null && style && (style.width ?? 0) > 0) style.color = color;
      return style;
    }

    /** @param {RulerWaypoint} waypoint @param {foundry.grid.BaseGrid.Offset3D} offset */
    _getGridHighlightStyle(waypoint, offset) {
      const style = super._getGridHighlightStyle(waypoint, offset);
      const color = this.vttbridgeColor(waypoint);
      if (color !== null && style && style.alpha !== 0) style.color = color;
      return style;
    }

    /**
     * The colour of the path up to `waypoint`, or null for Foundry's own.
     * @param {RulerWaypoint} waypoint @returns {number | null}
     */
    vttbridgeColor(waypoint) {
      if (waypoint?.stage !== "planned" || !enabled()) return null;
      const doc = this.token?.document;
      const b = doc?.getFlag("vttbridge", "budget");
      if (!doc || !b) return null;
      return RULER_COLORS[budgetTier(b, plannedLength(doc, waypoint, b))];
    }
  };
}
