// The rules' questions to a player: on Foundry v13+ a query to that player's client
// (CONFIG.queries["vttbridge.prompt"], User#query), which shows a dialog they cannot miss and
// closes it when the prompt times out (the bridge then applies the prompt's default); the answer
// comes back to the primary GM's client, which sends it to the bridge. On v11-v12, or when the
// player cannot be queried (offline), the question is a whisper with answer buttons.
//
// API reference, Version 13: CONFIG.queries, User#query(queryName, queryData, {timeout}),
// foundry.applications.api.DialogV2.wait.

import { t } from "./i18n.js";

export const QUERY = /** @type {const} */ ("vttbridge.prompt");

/** @typedef {import("../types/vttbridge").PromptQuery} PromptQuery */

/** @param {string} text */
export function escapeHtml(text) {
  /** @type {Record<string, string>} */
  const map = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => map[c] ?? c);
}

/** v13+: users can be queried. */
export function queriesApi() {
  return Number(game.release?.generation ?? 0) >= 13;
}

/**
 * The question as a dialog on this client: the option chosen, or null when the player closes
 * it or it times out (after `data.timeout` seconds).
 * @param {PromptQuery} data
 * @returns {Promise<string | null>}
 */
export async function askDialog(data) {
  const { DialogV2 } = foundry.applications.api;
  /** @type {{close: () => unknown} | null} */
  let shown = null;
  const timer = data.timeout ? setTimeout(() => shown?.close(), data.timeout * 1000) : null;
  const wait = data.timeout ? t("Prompt.Wait", { default: data.default, seconds: data.timeout }) : "";
  try {
    const choice = await DialogV2.wait({
      window: { title: t("Prompt.Title") },
      content: `<p>${escapeHtml(data.question)}</p>${wait ? `<p class="hint">${escapeHtml(wait)}</p>` : ""}`,
      buttons: data.options.map((o) => ({ action: o, label: o, default: o === data.default })),
      rejectClose: false,
      render: (_event, dialog) => {
        shown = dialog;
      },
    });
    return typeof choice === "string" && data.options.includes(choice) ? choice : null;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Register the query handler (every client: any of them may be the one asked). */
export function registerQueries() {
  if (!queriesApi() || !CONFIG.queries) return;
  CONFIG.queries[QUERY] = async (data) => askDialog(data);
}
