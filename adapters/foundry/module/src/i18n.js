// Every string a user of the module reads goes through Foundry's localisation (game.i18n):
// the keys live in lang/<language>.json (module.json "languages"). A key the loaded language
// lacks shows as the key itself, as Foundry does, so a missing translation is visible.

export const MODULE_ID = "vttbridge";

/**
 * The text of `key` (`VTTBRIDGE.` is prefixed) in the user's language, with `{name}`
 * placeholders filled from `data`.
 * @param {string} key
 * @param {Record<string, string | number>} [data]
 * @returns {string}
 */
export function t(key, data) {
  const id = `VTTBRIDGE.${key}`;
  const i18n = game.i18n;
  if (!i18n) return id;
  if (!data) return i18n.localize(id);
  return i18n.format(id, Object.fromEntries(Object.entries(data).map(([k, v]) => [k, String(v)])));
}

/**
 * A notification to this user, in their language.
 * @param {"info" | "warn" | "error"} level
 * @param {string} key
 * @param {Record<string, string | number>} [data]
 */
export function notify(level, key, data) {
  ui.notifications?.[level](t(key, data));
}
