// The panels beside the map. Each renders one part of the view the bridge sends
// (adapters/bridge/dashboard/view.py) as it is: the rules' numbers, nothing recomputed.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { clock, duration, feet, secondsLeft, spent } from "./format.js";

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

function actionsText(c, perTurn, foe) {
  // FoE: two actions a turn; Spycraft: two half actions (a full action spends both)
  const used = c.actions_taken.length ? spent(c.actions_taken, !foe) : "none";
  const unit = foe ? "action" : "half action";
  const left = `${c.half_actions} of ${perTurn} ${unit}${perTurn === 1 ? "" : "s"} left`;
  const free = c.free_used ? `, ${c.free_used} free` : "";
  return { used: used + free, left };
}

export function Initiative({ encounter, foe }) {
  const e = encounter;
  const heading = e.in_combat
    ? `Initiative — round ${e.round}${e.count !== null ? `, count ${e.count}` : ""}${e.surprise_round ? " (surprise round)" : ""}`
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
                  const a = actionsText(c, e.actions_per_turn, foe);
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
                      <td>${a.used}<br /><small>${a.left}</small></td>
                      <td class="badges">${status}</td>
                    </tr>
                  `;
                })}
              </tbody>
            </table>
          `}
      ${e.surprised.length > 0 &&
      html`<p class="hint">Surprised, sitting out the surprise round: ${e.surprised.join(", ")}.</p>`}
    </${Panel}>
  `;
}

// -- FoE movement ---------------------------------------------------------------------------------

export function Movement({ encounter, units }) {
  const rows = encounter.initiative.filter((c) => c.movement);
  return html`
    <${Panel} id="movement-h" title="Movement left this turn" className="movement">
      ${!rows.length
        ? html`<${Empty}>Nobody is in the turn order.</${Empty}>`
        : html`
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" class="num">Speed</th>
                  <th scope="col" class="num">Moved</th>
                  <th scope="col" class="num">Walk</th>
                  <th scope="col" class="num">Run</th>
                  <th scope="col" class="num">Sneak</th>
                  <th scope="col" class="num">Allowed now</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map((c) => {
                  const m = c.movement;
                  const dash = html`<span aria-label="not open">—</span>`;
                  return html`
                    <tr key=${c.token} class=${c.active ? "active" : ""}>
                      <th scope="row">${c.name}</th>
                      <td class="num">${feet(m.speed, units)}</td>
                      <td class="num">${feet(m.moved, units)}</td>
                      <td class="num">${m.walk === null ? dash : feet(m.walk, units)}</td>
                      <td class="num">${m.run === null ? dash : feet(m.run, units)}</td>
                      <td class="num">${m.sneak === null ? dash : feet(m.sneak, units)}</td>
                      <td class="num strong">${feet(m.left, units)}</td>
                    </tr>
                  `;
                })}
              </tbody>
            </table>
            <p class="hint">Walk keeps an action for something else; a run spends both actions moving (3 × speed).</p>
          `}
    </${Panel}>
  `;
}

// -- Readies ---------------------------------------------------------------------------------------

export function Readies({ readies }) {
  return html`
    <${Panel} id="readies-h" title="Readies" className="readies">
      ${!readies.length
        ? html`<${Empty}>No Ready is held.</${Empty}>`
        : html`
            <ul class="cards">
              ${readies.map(
                (r) => html`
                  <li key=${r.owner} class="card ${r.pending ? "pending" : ""}">
                    <p class="card-title"><strong>${r.owner_name}</strong> readies <em>${r.action}</em></p>
                    <dl>
                      <dt>Trigger</dt>
                      <dd>${r.trigger} <span class="badge">${r.timing === "attempt" ? "on the attempt" : "on completion"}</span>${r.watch ? html` <span class="badge watch">on the map</span>` : ""}</dd>
                      <dt>Declared</dt>
                      <dd>round ${r.declared_round}, IC ${r.declared_ic}</dd>
                      <dt>Expires</dt>
                      <dd>
                        ${r.pending
                          ? "waiting for the answer (it neither carries over nor expires)"
                          : `round ${r.expires_round}${r.expires_ic !== null ? `, when the count reaches IC ${r.expires_ic}` : ""}`}
                        ${r.carried_over && !r.pending ? html` <span class="badge delayed">carried over</span>` : ""}
                      </dd>
                      ${r.pending &&
                      html`<dt>Triggered</dt>
                        <dd>${r.triggered_by ? `by ${r.triggered_by}; ` : ""}fire or cancel?</dd>`}
                    </dl>
                  </li>
                `,
              )}
            </ul>
          `}
    </${Panel}>
  `;
}

// -- stand offs ------------------------------------------------------------------------------------

function Participant({ p }) {
  const next = p.thresholds[p.thresholds.length - 1];
  const badges = [];
  if (p.choosing) badges.push(html`<span class="badge hostile">cracked — choosing</span>`);
  else if (p.cracked) badges.push(html`<span class="badge hostile">cracked</span>`);
  if (p.surrendered)
    badges.push(html`<span class="badge muted">surrendered${p.surrendered_to.length ? ` to ${p.surrendered_to.join(", ")}` : ""}</span>`);
  if (p.permitted) badges.push(html`<span class="badge">permitted one action</span>`);
  return html`
    <li class="participant">
      <p><strong>${p.name}</strong>${p.weapon ? html` <small>levels ${p.weapon}</small>` : ""} ${badges}</p>
      <div class="stress">
        <meter min="0" max=${next} low=${next * 0.3} high=${next * 0.75} optimum="0" value=${Math.min(p.stress, next)} aria-label="Stress of ${p.name}"></meter>
        <span>stress <strong>${p.stress}</strong> · thresholds ${p.thresholds.join(", ")} (Wisdom ${p.wisdom})${p.exceeded ? ` · ${p.exceeded} exceeded` : ""}</span>
      </div>
    </li>
  `;
}

export function Standoffs({ standoffs }) {
  const shown = standoffs.filter((s) => s.active || s.ended_round !== null);
  return html`
    <${Panel} id="standoffs-h" title="Stand offs" className="standoffs">
      ${!shown.length
        ? html`<${Empty}>No stand off.</${Empty}>`
        : html`
            <ul class="cards">
              ${shown.map(
                (s) => html`
                  <li key=${s.id} class="card ${s.active ? "" : "ended"}">
                    <p class="card-title">
                      <strong>Stand off ${s.id}</strong>
                      ${s.active
                        ? ` · since round ${s.started_round}${s.last_check_round ? `, last Resolve check round ${s.last_check_round}` : ""}`
                        : ` · ended round ${s.ended_round}${s.end_reason ? ` (${s.end_reason.replace("_", " ")})` : ""}`}
                      ${s.tie_pending ? html` <span class="badge delayed">tie: the GM decides</span>` : ""}
                    </p>
                    <div class="sides">
                      ${s.sides.map(
                        (side, i) => html`
                          <div class="side" key=${i}>
                            <h3>Side ${i + 1}</h3>
                            <ul>${side.map((p) => html`<${Participant} key=${p.token} p=${p} />`)}</ul>
                          </div>
                        `,
                      )}
                    </div>
                  </li>
                `,
              )}
            </ul>
          `}
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
            </li>
          `,
        )}
      </ol>
      ${!log.length && html`<${Empty}>The rules have said nothing yet.</${Empty}>`}
    </${Panel}>
  `;
}
