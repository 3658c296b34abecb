// Small pure helpers the panels share (tested under Node: test/format.test.mjs).

/** "25 ft", "7.5 ft"; null (no limit) as "free". */
export function feet(value, units = "ft") {
  if (value === null || value === undefined) return "free";
  const n = Math.round(value * 10) / 10;
  return `${n} ${units}`;
}

/** Whole seconds left until `deadline` (server clock), given the page's offset to it. */
export function secondsLeft(deadline, nowServer) {
  if (deadline === null || deadline === undefined) return null;
  return Math.max(0, Math.ceil(deadline - nowServer));
}

/** "1 min 05 s" / "42 s". */
export function duration(seconds) {
  if (seconds === null) return "";
  if (seconds >= 60) {
    const m = Math.floor(seconds / 60);
    const s = String(seconds % 60).padStart(2, "0");
    return `${m} min ${s} s`;
  }
  return `${seconds} s`;
}

/** Up to two initials of a token's name, for its disc on the map. */
export function initials(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  if (!words.length) return "?";
  if (words.length === 1) return words[0].slice(0, 2);
  return (words[0][0] + words[1][0]).toUpperCase();
}

/** "hostile" / "neutral" / "friendly" from a VTT disposition. */
export function side(disposition) {
  if (disposition < 0) return "hostile";
  if (disposition > 0) return "friendly";
  return "neutral";
}

/** "12:04:31" in the page's time zone. */
export function clock(epochSeconds) {
  const d = new Date(epochSeconds * 1000);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** A random event id (crypto.randomUUID needs a secure context; a LAN address is not one). */
export function eventId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return "dash-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A stable hue per region name, so each region keeps its colour across views. */
export function hue(name) {
  let h = 0;
  for (const ch of String(name)) h = (h * 31 + ch.codePointAt(0)) % 360;
  return (h * 137) % 360;
}

/**
 * The chat lines to show after a view: its own when it carries the whole recent log
 * (`log_full`), else those before plus its lines not seen yet (numbered in order, `n`).
 */
export function mergeLog(before, view, keep = 100) {
  if (view.log_full) return view.log.slice(-keep);
  const last = before.length ? before[before.length - 1].n : -Infinity;
  const fresh = view.log.filter((l) => l.n > last);
  return fresh.length ? [...before, ...fresh].slice(-keep) : before;
}
