// The session's timeline: every event the world accepted and what it caused, with the rules
// cited, filterable by token and round. The page asks for it (socket event "timeline"); the
// bridge reads it from the world's log (adapters/bridge/dashboard/timeline.py).
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { clock } from "./format.js";
import { Cites } from "./cites.js";

const KIND_LABEL = {
  chat: "says",
  ask: "asks",
  move: "moves",
  initiative: "initiative",
  turn: "turn",
  stats: "sheet",
  conditions: "conditions",
  other: "",
};

function Caused({ c }) {
  return html`
    <li class=${`caused ${c.kind}`}>
      ${KIND_LABEL[c.kind] && html`<span class="badge muted">${KIND_LABEL[c.kind]}</span>`}
      ${c.to && html`<span class="badge muted">to ${c.to}</span>`}
      <span class="text">${c.text}</span>
      <${Cites} cites=${c.cites} />
    </li>
  `;
}

function Entry({ e }) {
  return html`
    <li class="tl-entry" data-seq=${e.seq}>
      <p class="tl-head">
        <time datetime=${new Date(e.at * 1000).toISOString()}>${clock(e.at)}</time>
        <span class="badge">#${e.seq}</span>
        ${e.round !== null && html`<span class="badge turn">round ${e.round}</span>`}
        <strong>${e.text}</strong>
      </p>
      ${e.caused.length > 0 && html`<ul class="tl-caused">${e.caused.map((c, i) => html`<${Caused} key=${i} c=${c} />`)}</ul>`}
    </li>
  `;
}

export function Timeline({ load }) {
  const [open, setOpen] = useState(false);
  const [token, setToken] = useState("");
  const [round, setRound] = useState("");
  const [cited, setCited] = useState(false);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  async function refresh() {
    setBusy(true);
    const filter = { cited };
    if (token) filter.token = token;
    if (round !== "") filter.round = Number(round);
    const ack = await load(filter);
    setBusy(false);
    if (ack?.ok) {
      setData(ack.timeline);
      setError(null);
    } else setError(ack?.error?.message ?? "The timeline could not be read.");
  }
  useEffect(() => {
    if (open) refresh();
  }, [open, token, round, cited]);

  return html`
    <section class="panel timeline" aria-labelledby="timeline-h">
      <h2 id="timeline-h">Session timeline</h2>
      <p class="hint">Every event of the session and what it caused, with the rules cited: for looking back after the game.</p>
      ${!open
        ? html`<button type="button" onClick=${() => setOpen(true)}>Show the timeline</button>`
        : html`
            <form class="tl-filters" onSubmit=${(ev) => ev.preventDefault()}>
              <div class="field">
                <label for="tl-token">Token</label>
                <select id="tl-token" value=${token} onChange=${(ev) => setToken(ev.target.value)}>
                  <option value="">every token</option>
                  ${(data?.tokens ?? []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}
                </select>
              </div>
              <div class="field">
                <label for="tl-round">Round</label>
                <select id="tl-round" value=${round} onChange=${(ev) => setRound(ev.target.value)}>
                  <option value="">every round</option>
                  ${(data?.rounds ?? []).map((r) => html`<option value=${String(r)}>round ${r}</option>`)}
                </select>
              </div>
              <label class="check"><input id="tl-cited" type="checkbox" checked=${cited} onChange=${(ev) => setCited(ev.target.checked)} /> only what a rule refused or decided</label>
              <button type="button" class="quiet" onClick=${refresh} disabled=${busy}>Refresh</button>
              <button type="button" class="quiet" onClick=${() => setOpen(false)}>Hide</button>
            </form>
            ${error && html`<p class="error" role="alert">${error}</p>`}
            ${data &&
            html`
              <p class="meta" role="status">
                ${data.matched} event${data.matched === 1 ? "" : "s"}${data.matched > data.entries.length ? ` (the last ${data.entries.length} shown)` : ""}
              </p>
              ${data.entries.length
                ? html`<ol class="tl-entries">${data.entries.map((e) => html`<${Entry} key=${e.seq} e=${e} />`)}</ol>`
                : html`<p class="empty">Nothing matches.</p>`}
            `}
          `}
    </section>
  `;
}
