// Grid cells and held-move decisions. Mirrors adapters/foundry/geometry.py and
// sdk/regions.py (line_xy): the module and the bridge must agree on which cells a move crosses.

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
  const path = line(start, end);
  for (const m of entries) {
    if (m.token && m.token !== token._id && m.token !== token.id) continue;
    if (m.exclude && (m.exclude === token._id || m.exclude === token.id)) continue;
    if (m.cells == null) return true;
    const set = new Set(m.cells.map(([x, y]) => `${x},${y}`));
    for (let i = 1; i < path.length; i++) {
      if (set.has(`${path[i][0]},${path[i][1]}`) && !set.has(`${path[i - 1][0]},${path[i - 1][1]}`)) {
        return true;
      }
    }
  }
  return false;
}
