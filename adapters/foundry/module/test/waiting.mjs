// What the module's scenario tests share: waiting for the table to reach a state, checking it,
// and chat HTML as plain text. Plain ES module: the Node tests and the Chromium page load it.

/** Throw unless `ok`. */
export function check(ok, message) {
  if (!ok) throw new Error(`check failed: ${message}`);
}

/** Poll `pred` until it is truthy (its value is returned), or fail after `ms`. */
export async function waitFor(what, pred, ms = 10000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A chat message's HTML as the text a reader sees. */
export const text = (html) => String(html ?? "").replace(/<[^>]+>/g, " ").replace(/&#39;/g, "'").replace(/\s+/g, " ").trim();
