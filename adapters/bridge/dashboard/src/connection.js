// The dashboard's socket: namespace /dashboard of the bridge that served this page. The world
// and key travel in the connect auth only (never in a URL) and stay in this tab's
// sessionStorage, so a reload reconnects and closing the tab forgets them.
import { io } from "socket.io-client";
import { eventId } from "./format.js";

const STORAGE = "vttbridge.dashboard";
const CLIENT = { name: "vttbridge-dashboard", version: __VERSION__ };
/** Refusals that no retry will fix: the page asks for the world and key again. */
const FINAL = new Set(["wrong_key", "unknown_world", "bad_auth", "unsupported_protocol"]);

export function storedLogin() {
  try {
    const raw = sessionStorage.getItem(STORAGE);
    const v = raw ? JSON.parse(raw) : null;
    return v && typeof v.world === "string" && typeof v.key === "string" ? v : null;
  } catch {
    return null;
  }
}

export function storeLogin(login) {
  if (login) sessionStorage.setItem(STORAGE, JSON.stringify(login));
  else sessionStorage.removeItem(STORAGE);
}

/**
 * Connect; `on` gets { status, welcome, view, refused }. Returns { answer, timeline, close }.
 * status: "connecting" | "live" | "reconnecting" | "closed".
 */
export function connect(login, on) {
  // Served at <prefix>/ : the socket lives at <prefix>/socket.io (a reverse proxy may add one)
  const base = new URL(".", location.href);
  const socket = io(`${base.origin}/dashboard`, {
    path: `${base.pathname}socket.io`,
    auth: { world: login.world, key: login.key, client: CLIENT },
    reconnectionDelayMax: 5000,
  });
  on.status("connecting");
  socket.on("connect", () => on.status("live"));
  socket.on("welcome", (w) => on.welcome(w));
  socket.on("view", (v) => on.view(v));
  let retry = null;
  socket.on("connect_error", (err) => {
    const code = err?.data?.code;
    if (code && FINAL.has(code)) {
      socket.disconnect();
      on.refused({ code, message: err.message });
      return;
    }
    on.status("reconnecting");
    // a refusal that may pass (the server is shutting down, the world is loading): socket.io
    // does not retry a refused connect by itself
    if (!socket.active) retry = setTimeout(() => socket.connect(), 3000);
  });
  socket.on("disconnect", () => {
    on.status(socket.active ? "reconnecting" : "closed");
  });
  return {
    /** Answer a question as the GM; resolves to the bridge's ack {ok, seq} or {ok: false, error}. */
    async answer(prompt, option) {
      try {
        return await socket.timeout(15000).emitWithAck("answer", { id: eventId(), prompt, option });
      } catch {
        return { ok: false, error: { code: "timeout", message: "The server did not answer in time; try again." } };
      }
    },
    /**
     * The session's timeline from the world's log, filtered ({token?, round?, cited?}); resolves
     * to {ok: true, timeline} or {ok: false, error}.
     */
    async timeline(filter) {
      try {
        return await socket.timeout(30000).emitWithAck("timeline", filter);
      } catch {
        return { ok: false, error: { code: "timeout", message: "The server did not answer in time; try again." } };
      }
    },
    close() {
      clearTimeout(retry);
      socket.disconnect();
    },
  };
}
