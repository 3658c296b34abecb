// The page: sign in with a world's name and key, then the live view of that world.
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { connect, storedLogin, storeLogin } from "./connection.js";
import { mergeLog } from "./format.js";
import { LinkHelp } from "./link.js";
import { SceneMap } from "./map.js";
import { Initiative, Questions, RulesLog, SystemPanel } from "./panels.js";
import { Timeline } from "./timeline.js";

const STATUS_TEXT = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Connection lost; reconnecting…",
  closed: "Disconnected",
};

function SignIn({ onSignIn, error }) {
  const [world, setWorld] = useState(storedLogin()?.world ?? "default");
  const [key, setKey] = useState("");
  const keyInput = useRef(null);
  useEffect(() => {
    if (error) keyInput.current?.focus();
  }, [error]);
  function submit(e) {
    e.preventDefault();
    if (world.trim() && key.trim()) onSignIn({ world: world.trim(), key: key.trim() });
  }
  return html`
    <main id="main" class="signin">
      <form onSubmit=${submit} aria-labelledby="signin-h" class="panel">
        <h1 id="signin-h">vttbridge dashboard</h1>
        <p>Sign in with the world's name and its GM key (or the observer key, to watch).</p>
        <label for="world">World</label>
        <input id="world" name="world" value=${world} onInput=${(e) => setWorld(e.target.value)} autocomplete="off" spellcheck="false" required />
        <label for="key">Key</label>
        <input
          id="key"
          name="key"
          type="password"
          ref=${keyInput}
          value=${key}
          onInput=${(e) => setKey(e.target.value)}
          autocomplete="off"
          spellcheck="false"
          required
          aria-describedby=${error ? "signin-error" : undefined}
          aria-invalid=${error ? "true" : undefined}
        />
        <button type="submit">Sign in</button>
        <p id="signin-error" class="error" role="alert">${error ?? ""}</p>
        <p class="hint">The key stays in this tab only (until you close it or sign out).</p>
      </form>
    </main>
  `;
}

// This server as the GM's browser reaches it (behind a reverse proxy: with its path prefix)
function serverUrl() {
  return new URL(".", location.href).href.replace(/\/$/, "");
}

function LinkStatus({ link }) {
  if (!link.vtt) return html`<span class="pill off">No VTT linked yet</span>`;
  const name = { foundry: "Foundry VTT", roll20: "Roll20" }[link.vtt] ?? link.vtt;
  return link.connected
    ? html`<span class="pill on">${name} linked</span>`
    : html`<span class="pill off">${name}: not connected</span>`;
}

function Dashboard({ view, log, role, status, answer, timeline, onSignOut }) {
  const canAnswer = role === "gm";
  const placed = (where) => view.panels.filter((p) => p.place === where);
  return html`
    <header class="top" role="banner">
      <h1>vttbridge <span class="world">${view.world}</span></h1>
      <span class="system">${view.system_title}</span>
      <${LinkStatus} link=${view.link} />
      ${view.link.node
        ? html`<span class="pill node" title="The server of the cluster that runs this world">on ${view.link.node}</span>`
        : null}
      <span class="pill ${canAnswer ? "gm" : "observer"}">${canAnswer ? "GM" : "Observer (read-only)"}</span>
      <span class="status ${status}" role="status">${STATUS_TEXT[status] ?? status}</span>
      <button type="button" class="quiet" onClick=${onSignOut}>Sign out</button>
    </header>
    <main id="main" class="board">
      <div class="column">
        ${!view.link.connected && html`<${LinkHelp} world=${view.world} link=${view.link} origin=${serverUrl()} />`}
        <section class="panel map-panel" aria-labelledby="map-h">
          <h2 id="map-h">${view.scene.name || "Scene"}</h2>
          <${SceneMap} scene=${view.scene} encounter=${view.encounter} />
        </section>
        ${placed("main").map((p) => html`<${SystemPanel} key=${p.id} panel=${p} />`)}
      </div>
      <div class="column">
        <${Questions} view=${view} canAnswer=${canAnswer} answer=${answer} />
        <${Initiative} encounter=${view.encounter} />
        ${placed("side").map((p) => html`<${SystemPanel} key=${p.id} panel=${p} />`)}
      </div>
      <${RulesLog} log=${log} />
      <${Timeline} key=${view.world} load=${timeline} />
    </main>
  `;
}

export function App() {
  const [login, setLogin] = useState(storedLogin);
  const [error, setError] = useState(null);
  const [status, setStatus] = useState("connecting");
  const [welcome, setWelcome] = useState(null);
  const [view, setView] = useState(null);
  const [log, setLog] = useState([]);
  const conn = useRef(null);

  useEffect(() => {
    if (!login) return undefined;
    setView(null);
    setWelcome(null);
    setLog([]);
    const c = connect(login, {
      status: setStatus,
      welcome: setWelcome,
      view: (v) => {
        setView({ ...v, receivedAt: Date.now() / 1000 });
        setLog((before) => mergeLog(before, v));
      },
      refused: ({ message }) => {
        storeLogin(null);
        setError(message);
        setLogin(null);
      },
    });
    conn.current = c;
    return () => c.close();
  }, [login]);

  function signIn(l) {
    setError(null);
    storeLogin(l);
    setLogin(l);
  }
  function signOut() {
    storeLogin(null);
    setLogin(null);
    setError(null);
  }

  if (!login) return html`<${SignIn} onSignIn=${signIn} error=${error} />`;
  if (!view || !welcome)
    return html`<main id="main" class="loading"><p role="status">${STATUS_TEXT[status] ?? status} (world ${login.world})</p></main>`;
  return html`<${Dashboard}
    view=${view}
    log=${log}
    role=${welcome.role}
    status=${status}
    answer=${(p, o) => conn.current.answer(p, o)}
    timeline=${(f) => conn.current.timeline(f)}
    onSignOut=${signOut}
  />`;
}
