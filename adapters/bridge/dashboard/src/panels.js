// The panels beside the map. Each renders one part of the view the bridge sends
// (adapters/bridge/dashboard/view.py) as it is: the rules' numbers, nothing recomputed.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { clock, duration, secondsLeft } from "./format.js";
import { Cites } from "./cites.js";

function Panel({ id, title, children, className = "" }) {
  return html`
    <section class="panel ${className}" aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${children}
    </section>
  `;
}

function Empty({ children }) {
  return html`<p class="empty">${children}</p>`;
}

// -- initiative ---------------------------------------------------------------------------------

export function Initiative({ encounter }) {
  const e = encounter;
  const heading = e.in_combat
    ? `Initiative — round ${e.round}${e.count !== null ? `, count ${e.count}` : ""}${e.phase ? ` (${e.phase})` : ""}`
    : "Initiative";
  return html`
    <${Panel} id="initiative-h" title=${heading} className="initiative">
      ${!e.initiative.length
        ? html`<${Empty}>No combat is running.</${Empty}>`
        : html`
            <table>
              <thead>
                <tr>
                  <th scope="col"><span class="sr-only">Turn</span></th>
                  <th scope="col">Name</th>
                  <th scope="col" class="num">IC</th>
                  <th scope="col">Actions this turn</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                ${e.initiative.map((c) => {
                  const status = [];
                  if (c.active) status.push(html`<span class="badge turn">acting</span>`);
                  else if (c.acted) status.push(html`<span class="badge muted">acted</span>`);
                  else status.push(html`<span class="badge">waiting</span>`);
                  if (c.delayed) status.push(html`<span class="badge delayed">delayed ${c.delayed}</span>`);
                  return html`
                    <tr key=${c.token} class=${c.active ? "active" : c.acted ? "acted" : ""} aria-current=${c.active ? "true" : undefined}>
                      <td class="marker" aria-hidden="true">${c.active ? "▶" : ""}</td>
                      <th scope="row">${c.name}</th>
                      <td class="num ic">${c.ic}</td>
                      <td>${c.actions_used}<br /><small>${c.actions_left}</small></td>
                      <td class="badges">${status}</td>
                    </tr>
                  `;
                })}
              </tbody>
            </table>
          `}
      ${e.notes.map((n) => html`<p class="hint">${n}</p>`)}
    </${Panel}>
  `;
}

// -- a game system's own panels ---------------------------------------------------------------------
// A system describes them (adapters/bridge/dashboard/view.py, sdk/panels.py): a table, or cards of
// facts and groups, with badges and meters. They are drawn here the same way for every system.

function Badges({ badges }) {
  return badges.map((b) => html` <span class="badge ${b.tone}">${b.text}</span>`);
}

function Gauge({ m }) {
  return html`<meter min="0" max=${m.max} low=${m.low ?? undefined} high=${m.high ?? undefined} optimum="0" value=${m.value} aria-label=${m.label || undefined}></meter>`;
}

function Entry({ e }) {
  return html`
    <li class="entry">
      <p><strong>${e.title}</strong>${e.note ? html` <small>${e.note}</small>` : ""}<${Badges} badges=${e.badges} /></p>
      ${(e.text || e.meter) &&
      html`<div class="gauge">${e.meter && html`<${Gauge} m=${e.meter} />`}${e.text && html`<span>${e.text}</span>`}</div>`}
    </li>
  `;
}

function SystemCard({ card }) {
  return html`
    <li class="card ${card.tone}">
      <p class="card-title">
        <strong>${card.title}</strong>${card.subtitle ? ` · ${card.subtitle}` : ""}<${Badges} badges=${card.badges} />
      </p>
      ${card.facts.length > 0 &&
      html`<dl>
        ${card.facts.map((f) => html`<dt>${f.term}</dt><dd>${f.text}<${Badges} badges=${f.badges} /></dd>`)}
      </dl>`}
      ${card.groups.length > 0 &&
      html`<div class="groups">
        ${card.groups.map(
          (g, i) => html`
            <div class="group" key=${i}>
              <h3>${g.heading}</h3>
              <ul>${g.entries.map((e, k) => html`<${Entry} key=${k} e=${e} />`)}</ul>
            </div>
          `,
        )}
      </div>`}
    </li>
  `;
}

function SystemTable({ table }) {
  const dash = html`<span aria-label="not open">—</span>`;
  return html`
    <table>
      <thead>
        <tr>${table.columns.map((c) => html`<th scope="col" class=${c.numeric ? "num" : ""}>${c.label}</th>`)}</tr>
      </thead>
      <tbody>
        ${table.rows.map(
          (r) => html`
            <tr key=${r.key} class=${r.active ? "active" : ""}>
              ${r.cells.map((cell, i) =>
                i === 0
                  ? html`<th scope="row">${cell}</th>`
                  : html`<td class=${table.columns[i]?.numeric ? "num" : ""}>${cell === null ? dash : cell}</td>`,
              )}
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}

export function SystemPanel({ panel }) {
  const rows = panel.table ? panel.table.rows.length : 0;
  const empty = !rows && !panel.cards.length;
  return html`
    <${Panel} id=${`${panel.id}-h`} title=${panel.title} className=${`system ${panel.id}`}>
      ${empty
        ? html`<${Empty}>${panel.empty}</${Empty}>`
        : html`
            ${rows > 0 && html`<${SystemTable} table=${panel.table} />`}
            ${panel.cards.length > 0 &&
            html`<ul class="cards">${panel.cards.map((c) => html`<${SystemCard} key=${c.key} card=${c} />`)}</ul>`}
          `}
      ${panel.hint && html`<p class="hint">${panel.hint}</p>`}
    </${Panel}>
  `;
}

// -- questions ---------------------------------------------------------------------------------------

function Question({ q, nowServer, canAnswer, answer }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const left = secondsLeft(q.deadline, nowServer);
  async function pick(option) {
    setBusy(true);
    setError(null);
    const ack = await answer(q.id, option);
    if (!ack?.ok) {
      setError(ack?.error?.message ?? "The answer was refused.");
      setBusy(false);
    }
    // accepted: the next view no longer has this question
  }
  const groupId = `q-${q.id}`;
  return html`
    <li class="card question">
      <p class="card-title" id=${groupId}>
        <strong>${q.question}</strong>
      </p>
      <p class="meta">
        for ${q.player_name}${q.token_name ? ` (about ${q.token_name})` : ""} · question ${q.id} · default <strong>${q.default}</strong>
        ${left !== null && html` in <span class="countdown">${duration(left)}</span>`}
      </p>
      ${left !== null &&
      q.timeout &&
      html`<progress max=${q.timeout} value=${Math.min(q.timeout, left)} aria-label="Time left to answer ${q.id}"></progress>`}
      ${canAnswer
        ? html`
            <div class="options" role="group" aria-labelledby=${groupId}>
              ${q.options.map(
                (o) => html`<button type="button" disabled=${busy} onClick=${() => pick(o)} class=${o === q.default ? "default" : ""}>
                  Answer ${o}
                </button>`,
              )}
            </div>
          `
        : html`<p class="readonly">Read-only: the player answers in the VTT, or the GM here with the GM key.</p>`}
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </li>
  `;
}

function useServerNow(view, ticking) {
  // the server's clock, advanced by this page's: countdowns tick here, no request needed
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    if (!ticking) return undefined;
    const t = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(t);
  }, [ticking]);
  const offset = view.now - view.receivedAt;
  return Math.max(now, view.receivedAt) + offset;
}

export function Questions({ view, canAnswer, answer }) {
  const prompts = view.prompts;
  const nowServer = useServerNow(view, prompts.length > 0);
  return html`
    <${Panel} id="questions-h" title=${`Questions waiting${prompts.length ? ` (${prompts.length})` : ""}`} className=${"questions" + (prompts.length ? " has-questions" : "")}>
      ${!prompts.length
        ? html`<${Empty}>Nobody is being asked anything.</${Empty}>`
        : html`
            <ul class="cards">
              ${prompts.map((q) => html`<${Question} key=${q.id} q=${q} nowServer=${nowServer} canAnswer=${canAnswer} answer=${answer} />`)}
            </ul>
          `}
    </${Panel}>
  `;
}

// -- the rules' chat ---------------------------------------------------------------------------------

export function RulesLog({ log }) {
  const list = useRef(null);
  const pinned = useRef(true); // follow new lines unless the GM scrolled up to read
  const last = log.length ? log[log.length - 1].n : -1;
  useLayoutEffect(() => {
    const el = list.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [last]);
  function scrolled() {
    const el = list.current;
    pinned.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
  }
  return html`
    <${Panel} id="log-h" title="Rules log" className="log">
      <ol class="log-lines" role="log" aria-live="polite" aria-relevant="additions" aria-labelledby="log-h" ref=${list} tabindex="0" onScroll=${scrolled}>
        ${log.map(
          (l) => html`
            <li key=${l.n} class=${l.kind}>
              <time datetime=${new Date(l.at * 1000).toISOString()}>${clock(l.at)}</time>
              ${l.to && html`<span class="badge muted">to ${l.to}</span>`}
              ${l.kind === "ask" && html`<span class="badge delayed">asks</span>`}
              <span class="text">${l.text}</span>
              <${Cites} cites=${l.cites} />
            </li>
          `,
        )}
      </ol>
      ${!log.length && html`<${Empty}>The rules have said nothing yet.</${Empty}>`}
    </${Panel}>
  `;
}
