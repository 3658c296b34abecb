// Grid cells and held-move decisions. Mirrors adapters/foundry/geometry.py, sdk/regions.py
// (line_xy) and rules/geometry.py (path lengths): the module and the bridge must agree on which
// cells a move crosses and how long a path is.

/** The cell holding a token's centre: x, y are its top-left corner in px, w, h its size in cells. */
export function cellOf(x, y, size, w = 1, h = 1) {
  return [Math.floor((x + (w * size) / 2) / size), Math.floor((y + (h * size) / 2) / size)];
}

/** Bresenham's line from cell a to cell b, both included (sdk.regions.line_xy). */
export function line(a, b) {
  let [x0, y0] = a;
  const [x1, y1] = b;
  const dx = Math.abs(x1 - x0);
  const dy = -Math.abs(y1 - y0);
  const sx = x1 > x0 ? 1 : -1;
  const sy = y1 > y0 ? 1 : -1;
  let err = dx + dy;
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

/** The pixel size of a scene's grid cell (v10+ scene.grid.size; v9 scene.grid). */
export function gridSize(scene) {
  const g = scene?.grid;
  const size = typeof g === "number" ? g : g?.size ?? scene?.dimensions?.size;
  return size > 0 ? size : 100;
}

/**
 * Does this move enter a watched cell? `watch` is the scene flag the bridge writes
 * (flags.vttbridge.watch): {watches: [{cells: [[x, y], ...] | null, token, exclude}], ...}.
 * A watch with `cells: null` watches every move (a Ready on a named condition).
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

/** The top-left corner in px that puts a token's centre in `cell` (adapters/foundry:
 * foundry_xy). */
export function xyOf(cell, size, w = 1, h = 1) {
  return [(cell[0] + 0.5) * size - (w * size) / 2, (cell[1] + 0.5) * size - (h * size) / 2];
}

/** The cells a path of points (top-left corners, px) passes through, every step of each leg,
 * with for each cell the index of the point that leg ends at (0: the start). */
export function stepCells(points, size, w = 1, h = 1) {
  const cells = [];
  const legs = [];
  let prev = null;
  points.forEach((p, i) => {
    const c = cellOf(p.x, p.y, size, p.width ?? w, p.height ?? h);
    if (prev === null) {
      cells.push(c);
      legs.push(0);
    } else {
      for (const step of line(prev, c).slice(1)) {
        cells.push(step);
        legs.push(i);
      }
    }
    prev = c;
  });
  return { cells, legs };
}

/**
 * Where a path first steps into a watched cell: the index in `cells` of that cell, or -1.
 * `watch` as for watchedMove; a watch with `cells: null` watches every move (its first step).
 */
export function watchedEntry(token, cells, watch) {
  const entries = watch?.watches;
  if (!Array.isArray(entries) || entries.length === 0 || cells.length < 2) return -1;
  let first = -1;
  for (const m of entries) {
    if (m.token && m.token !== token._id && m.token !== token.id) continue;
    if (m.exclude && (m.exclude === token._id || m.exclude === token.id)) continue;
    let at = -1;
    if (m.cells == null) {
      at = cells.findIndex((c, i) => i > 0 && (c[0] !== cells[0][0] || c[1] !== cells[0][1]));
    } else {
      const set = new Set(m.cells.map(([x, y]) => `${x},${y}`));
      for (let i = 1; i < cells.length; i++) {
        if (set.has(`${cells[i][0]},${cells[i][1]}`) && !set.has(`${cells[i - 1][0]},${cells[i - 1][1]}`)) {
          at = i;
          break;
        }
      }
    }
    if (at > 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/** A path's length in the grid's units, as the rules measure it (rules/geometry.py
 * path_cells): leg by leg under the world's diagonal `metric`, the alternating 5/10 count
 * running across the whole path. */
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
