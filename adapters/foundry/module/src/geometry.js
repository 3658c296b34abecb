// Grid cells and held-move decisions. Mirrors adapters/foundry/geometry.py, sdk/regions.py
// (line_xy), sdk/triggers.py (cell_levels) and rules/geometry.py (path lengths): the module and
// the bridge must agree on which cells a move crosses, on which level, and how long a path is.

/** @typedef {[number, number]} Cell a grid cell: column, row */
/** @typedef {{x: number, y: number, width?: number, height?: number, level?: string | null}} Spot
 * a position of a token's top-left corner in px (v14: on a level) */
/** @typedef {{cells: Cell[] | null, token?: string | null, exclude?: string | null,
 *   levels?: string[] | null}} Watch one watched trigger of the scene's watch flag */
/** @typedef {{watches: Watch[], budget_ms?: number, max_hold_ms?: number}} WatchFlag
 * flags.vttbridge.watch, the moves the bridge wants to see before they happen */
/** @typedef {{_id?: string | null, id?: string | null}} Named */

/**
 * The cell holding a token's centre: x, y are its top-left corner in px, w, h its size in cells.
 * @param {number} x @param {number} y @param {number} size @param {number} [w] @param {number} [h]
 * @returns {Cell}
 */
export function cellOf(x, y, size, w = 1, h = 1) {
  return [Math.floor((x + (w * size) / 2) / size), Math.floor((y + (h * size) / 2) / size)];
}

/**
 * Bresenham's line from cell a to cell b, both included (sdk.regions.line_xy).
 * @param {Cell} a @param {Cell} b @returns {Cell[]}
 */
export function line(a, b) {
  let [x0, y0] = a;
  const [x1, y1] = b;
  const dx = Math.abs(x1 - x0);
  const dy = -Math.abs(y1 - y0);
  const sx = x1 > x0 ? 1 : -1;
  const sy = y1 > y0 ? 1 : -1;
  let err = dx + dy;
  /** @type {Cell[]} */
  const out = [];
  for (;;) {
    out.push([x0, y0]);
    if (x0 === x1 && y0 === y1) return out;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

/**
 * The pixel size of a scene's grid cell (v10+ scene.grid.size; v9 scene.grid).
 * @param {{grid?: unknown, dimensions?: {size?: number}} | null | undefined} scene
 * @returns {number}
 */
export function gridSize(scene) {
  const g = scene?.grid;
  const size = typeof g === "number" ? g : (/** @type {{size?: number} | undefined} */ (g))?.size ?? scene?.dimensions?.size;
  return size !== undefined && size > 0 ? size : 100;
}

/**
 * Does this move (v11-v12: an update of x and y) enter a watched cell? A watch with
 * `cells: null` watches every move (a Ready on a named condition).
 * @param {Spot & Named} token @param {{x?: number, y?: number, width?: number, height?: number}} changes
 * @param {WatchFlag | null | undefined} watch @param {number} size
 * @returns {boolean}
 */
export function watchedMove(token, changes, watch, size) {
  const entries = watch?.watches;
  if (!Array.isArray(entries) || entries.length === 0) return false;
  if (!("x" in changes) && !("y" in changes)) return false;
  const w = changes.width ?? token.width ?? 1;
  const h = changes.height ?? token.height ?? 1;
  const start = cellOf(token.x, token.y, size, token.width ?? 1, token.height ?? 1);
  const end = cellOf(changes.x ?? token.x, changes.y ?? token.y, size, w, h);
  if (start[0] === end[0] && start[1] === end[1]) return false;
  return watchedEntry(token, line(start, end), watch) > 0;
}

/**
 * The top-left corner in px that puts a token's centre in `cell` (adapters/foundry:
 * foundry_xy).
 * @param {Cell} cell @param {number} size @param {number} [w] @param {number} [h]
 * @returns {[number, number]}
 */
export function xyOf(cell, size, w = 1, h = 1) {
  return [(cell[0] + 0.5) * size - (w * size) / 2, (cell[1] + 0.5) * size - (h * size) / 2];
}

/**
 * The cells a path of points (top-left corners, px) passes through, every step of each leg,
 * with for each cell the index of the point that leg ends at (0: the start) and its level
 * (v14: the level of the point the leg ends at, as the bridge counts it).
 * @param {Spot[]} points @param {number} size @param {number} [w] @param {number} [h]
 * @returns {{cells: Cell[], legs: number[], levels: (string | null)[]}}
 */
export function stepCells(points, size, w = 1, h = 1) {
  /** @type {Cell[]} */
  const cells = [];
  /** @type {number[]} */
  const legs = [];
  /** @type {(string | null)[]} */
  const levels = [];
  /** @type {Cell | null} */
  let prev = null;
  /** @type {string | null} */
  let level = null;
  points.forEach((p, i) => {
    const c = cellOf(p.x, p.y, size, p.width ?? w, p.height ?? h);
    level = p.level ?? level;
    const steps = prev === null ? [c] : line(prev, c).slice(1);
    for (const step of steps) {
      cells.push(step);
      legs.push(i);
      levels.push(level);
    }
    prev = c;
  });
  return { cells, legs, levels };
}

/**
 * Does watch `m` apply to `token` on `level`?
 * @param {Watch} m @param {Named} token @param {string | null | undefined} level
 */
function applies(m, token, level) {
  if (m.token && m.token !== token._id && m.token !== token.id) return false;
  if (m.exclude && (m.exclude === token._id || m.exclude === token.id)) return false;
  return !m.levels?.length || (level != null && m.levels.includes(level));
}

/**
 * Where a path first steps into a watched cell: the index in `cells` of that cell, or -1.
 * `levels`: each cell's level (v14); a watch on some levels only sees cells on those. A watch
 * with `cells: null` watches every move (its first step).
 * @param {Named} token @param {Cell[]} cells @param {WatchFlag | null | undefined} watch
 * @param {(string | null)[]} [levels]
 * @param {(m: Watch) => boolean} [only] which watches to consider (all by default)
 * @returns {number}
 */
export function watchedEntry(token, cells, watch, levels, only = () => true) {
  const entries = watch?.watches;
  if (!Array.isArray(entries) || entries.length === 0 || cells.length < 2) return -1;
  const at = (/** @type {number} */ i) => levels?.[i] ?? null;
  let first = -1;
  for (const m of entries) {
    if (!only(m)) continue;
    let found = -1;
    if (m.cells == null) {
      found = cells.findIndex((c, i) => i > 0 && (c[0] !== cells[0][0] || c[1] !== cells[0][1]) && applies(m, token, at(i)));
    } else {
      const set = new Set(m.cells.map(([x, y]) => `${x},${y}`));
      const inside = (/** @type {number} */ i) => set.has(`${cells[i][0]},${cells[i][1]}`) && applies(m, token, at(i));
      for (let i = 1; i < cells.length; i++) {
        if (inside(i) && !inside(i - 1)) {
          found = i;
          break;
        }
      }
    }
    if (found > 0 && (first < 0 || found < first)) first = found;
  }
  return first;
}

/**
 * A path's length in the grid's units, as the rules measure it (rules/geometry.py
 * path_cells): leg by leg under the world's diagonal `metric`, the alternating 5/10 count
 * running across the whole path.
 * @param {Cell[]} cells @param {string} [metric] @param {number} [distance]
 * @returns {number}
 */
export function pathLength(cells, metric = "alternating", distance = 5) {
  let total = 0;
  let diagonals = 0;
  for (let i = 1; i < cells.length; i++) {
    const dx = Math.abs(cells[i][0] - cells[i - 1][0]);
    const dy = Math.abs(cells[i][1] - cells[i - 1][1]);
    const diag = Math.min(dx, dy);
    if (metric === "chebyshev") total += Math.max(dx, dy);
    else if (metric === "euclidean") total += Math.hypot(dx, dy);
    else if (metric === "manhattan") total += dx + dy;
    else {
      total += Math.abs(dx - dy) + diag + Math.floor(((diagonals % 2) + diag) / 2);
      diagonals += diag;
    }
  }
  return total * distance;
}
