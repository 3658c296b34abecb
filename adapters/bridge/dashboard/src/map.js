// The scene drawn to scale: one SVG unit is one grid cell. Tokens, named regions, and the
// cells each Ready (or other position trigger) watches.
import { html } from "./html.js";
import { feet, hue, initials, side } from "./format.js";

function cellsPath(cells) {
  // one path of unit squares: cheap to draw, even for a large region
  return cells.map(([x, y]) => `M${x} ${y}h1v1h-1z`).join("");
}

function outline(cells) {
  // the edges of the area (not those between two of its cells)
  const set = new Set(cells.map(([x, y]) => `${x},${y}`));
  let d = "";
  for (const [x, y] of cells) {
    if (!set.has(`${x},${y - 1}`)) d += `M${x} ${y}h1`;
    if (!set.has(`${x},${y + 1}`)) d += `M${x} ${y + 1}h1`;
    if (!set.has(`${x - 1},${y}`)) d += `M${x} ${y}v1`;
    if (!set.has(`${x + 1},${y}`)) d += `M${x + 1} ${y}v1`;
  }
  return d;
}

function labelCell(cells) {
  // the top-left-most cell, where a region's name goes
  let best = cells[0];
  for (const c of cells) if (c[1] < best[1] || (c[1] === best[1] && c[0] < best[0])) best = c;
  return best;
}

function gridPath(b) {
  let d = "";
  for (let x = b.x0; x <= b.x1 + 1; x++) d += `M${x} ${b.y0}V${b.y1 + 1}`;
  for (let y = b.y0; y <= b.y1 + 1; y++) d += `M${b.x0} ${y}H${b.x1 + 1}`;
  return d;
}

export function SceneMap({ scene, encounter }) {
  const b = scene.bounds;
  const w = b.x1 - b.x0 + 1;
  const h = b.y1 - b.y0 + 1;
  const active = encounter.active;
  const cell = `${scene.grid.distance} ${scene.grid.units}`;
  const summary =
    `${scene.tokens.length} token${scene.tokens.length === 1 ? "" : "s"}, ` +
    `${scene.regions.length} named region${scene.regions.length === 1 ? "" : "s"}, ` +
    `${scene.watched.length} watched area${scene.watched.length === 1 ? "" : "s"}; one square is ${cell}.`;
  return html`
    <figure class="map">
      <svg
        viewBox="${b.x0} ${b.y0} ${w} ${h}"
        preserveAspectRatio="xMidYMid meet"
        role="img"
        aria-labelledby="map-title map-desc"
        class="map-svg"
      >
        <title id="map-title">Map of ${scene.name || "the scene"}</title>
        <desc id="map-desc">${summary}</desc>
        <defs>
          <pattern id="watch-hatch" width="0.25" height="0.25" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="0.25" height="0.25" class="hatch-bg" />
            <line x1="0" y1="0" x2="0" y2="0.25" class="hatch-line" />
          </pattern>
        </defs>
        <rect x=${b.x0} y=${b.y0} width=${w} height=${h} class="map-bg" />
        <path d=${gridPath(b)} class="grid" />
        ${scene.regions.map(
          (r) => html`
            <g class="region" key=${"r:" + r.name} style=${{ "--hue": hue(r.name) }}>
              <title>Region ${r.name}</title>
              <path d=${cellsPath(r.cells)} class="region-cells" />
              <path d=${outline(r.cells)} class="region-edge" />
              ${r.cells.length > 0 &&
              html`<text x=${labelCell(r.cells)[0] + 0.04} y=${labelCell(r.cells)[1] - 0.1} class="region-label">${r.name}</text>`}
            </g>
          `,
        )}
        ${scene.watched.map(
          (wt) => html`
            <g class="watched" key=${"w:" + wt.key}>
              <title>Watched by ${wt.label}</title>
              <path d=${cellsPath(wt.cells)} class="watched-cells" />
              <path d=${outline(wt.cells)} class="watched-edge" />
            </g>
          `,
        )}
        ${scene.tokens.map((t) => {
          const cls = ["token", side(t.disposition), t.id === active ? "active" : "", t.hidden ? "hidden" : ""].join(" ");
          return html`
            <g class=${cls} key=${"t:" + t.id} transform="translate(${t.x + 0.5} ${t.y + 0.5})">
              <title>${t.name} at column ${t.x}, row ${t.y}${t.hidden ? " (hidden)" : ""}${t.conditions.length ? " — " + t.conditions.join(", ") : ""}</title>
              ${t.id === active && html`<circle r="0.48" class="turn-ring" />`}
              <circle r="0.38" class="disc" />
              <text class="initials" dy="0.12">${initials(t.name)}</text>
              <text class="name" y="0.72">${t.name}</text>
            </g>
          `;
        })}
      </svg>
      <figcaption>
        <span class="legend"><span class="swatch friendly"></span>friendly</span>
        <span class="legend"><span class="swatch hostile"></span>hostile</span>
        <span class="legend"><span class="swatch neutral"></span>neutral</span>
        <span class="legend"><span class="swatch turn"></span>whose turn</span>
        <span class="legend"><span class="swatch watch"></span>watched by a Ready</span>
        <span class="scale">1 square = ${feet(scene.grid.distance, scene.grid.units)} (${scene.grid.metric} diagonals)</span>
      </figcaption>
      <details class="token-list">
        <summary>Tokens and areas as text</summary>
        <ul>
          ${scene.tokens.map(
            (t) => html`<li key=${t.id}>${t.name}: column ${t.x}, row ${t.y} (${side(t.disposition)}${t.hidden ? ", hidden" : ""})</li>`,
          )}
          ${scene.regions.map((r) => html`<li key=${"r" + r.name}>Region ${r.name}: ${r.cells.length} squares</li>`)}
          ${scene.watched.map((wt) => html`<li key=${"w" + wt.key}>${wt.label} watches ${wt.cells.length} squares</li>`)}
        </ul>
      </details>
    </figure>
  `;
}
