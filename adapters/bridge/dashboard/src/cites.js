// The rules a line of the log cites: each a link to its section of the rules page, with the
// world options that shaped it (the values they had then).
import { html } from "./html.js";

export function Cites({ cites }) {
  if (!cites || !cites.length) return null;
  return html`<span class="cites">
    ${cites.map(
      (c) => html`<a class="cite" href=${c.url} target="_blank" rel="noopener noreferrer" title=${`${c.source}, ${c.rule}${c.code ? ` (${c.code})` : ""}: the rule in the docs`}>
        ${c.source} · ${c.rule}
      </a>${Object.entries(c.options ?? {}).map(
        ([k, v]) => html` <span class="badge option" title="The world option that shaped it">${k} = ${v}</span>`,
      )}`,
    )}
  </span>`;
}
