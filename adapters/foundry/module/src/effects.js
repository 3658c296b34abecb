// The conditions the rules put on a character, shown on its token.
//
// v14, a condition the rules give a duration (a Ready: until his next turn): an Active Effect
// with that duration ({value, units, expiry}, EffectDurationData), which players see counting
// down and which Foundry expires (CONFIG.ActiveEffect.expiryAction: marked expired, or deleted).
// Exactly one side ends it: when the rules drop the condition the module deletes the effect only
// if Foundry has not ended it already; once Foundry ended it, the module leaves it alone.
// Otherwise (no duration, or v11-v13): the token's status effect, toggled (v12+
// Actor#toggleStatusEffect, v11 TokenDocument#toggleActiveEffect).

import { MODULE_ID } from "./i18n.js";

/** @typedef {import("../types/vttbridge").StatusToggle} StatusToggle */
/** @typedef {import("../types/foundry-v14").ActiveEffectV14} ActiveEffectV14 */

export class CommandError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * The status effect `id` as CONFIG.statusEffects holds it, registered first when Foundry does
 * not know it yet (the bridge's own: name and icon come with the command).
 * @param {StatusToggle} status
 */
export function statusEffect({ id, name, img }) {
  const entry = { id, name: name ?? id, img: img ?? "icons/svg/aura.svg" };
  const list = /** @type {unknown} */ (CONFIG.statusEffects);
  if (Array.isArray(list)) {
    const known = list.find((e) => e.id === id);
    if (known) return /** @type {typeof entry} */ (known);
    if (name || img) list.push(Number(game.release?.generation ?? 0) >= 12 ? entry : { id, name: entry.name, label: entry.name, icon: entry.img });
    return entry;
  }
  const byId = /** @type {Record<string, typeof entry>} */ (list); // keyed by id
  if (!byId[id] && (name || img)) byId[id] = entry;
  return byId[id] ?? entry;
}

/**
 * The module's effect for status `id` on `actor` that Foundry has not ended, if any.
 * @param {Actor} actor @param {string} id
 * @returns {ActiveEffectV14 | undefined}
 */
function liveEffect(actor, id) {
  for (const e of actor.effects) {
    const effect = /** @type {ActiveEffectV14} */ (/** @type {unknown} */ (e));
    if (effect.getFlag(MODULE_ID, "status") === id && !effect.duration.expired && !effect.disabled) return effect;
  }
  return undefined;
}

/**
 * Show or clear one condition on `token`.
 * @param {TokenDocument} token @param {StatusToggle} status @param {Record<string, unknown>} options
 */
export async function setStatus(token, status, options) {
  const actor = token.actor;
  const v14 = Number(game.release?.generation ?? 0) >= 14;
  if (actor && v14 && (status.duration || actor.effects.some((e) => e.getFlag(MODULE_ID, "status") === status.id))) {
    return setTimedEffect(actor, status, options);
  }
  if (actor && typeof actor.toggleStatusEffect === "function") return actor.toggleStatusEffect(status.id, { active: status.active }); // v12+
  const v11 = /** @type {{toggleActiveEffect?: (s: object, o: {active: boolean}) => Promise<unknown>}} */ (/** @type {unknown} */ (token));
  if (typeof v11.toggleActiveEffect === "function") return v11.toggleActiveEffect(statusEffect(status), { active: status.active }); // v11
  throw new CommandError("no_status_effects", "This Foundry version cannot toggle status effects.");
}

/**
 * v14: the condition as an Active Effect with the rules' duration, ended by one side only.
 * @param {Actor} actor @param {StatusToggle} status @param {Record<string, unknown>} options
 */
async function setTimedEffect(actor, status, options) {
  const live = liveEffect(actor, status.id);
  if (!status.active) {
    if (live) await live.delete(options); // else Foundry ended it (or it never was): not twice
    return false;
  }
  if (live) return true;
  const look = statusEffect(status);
  const data = {
    name: look.name ?? status.id,
    img: look.img,
    statuses: [status.id],
    duration: status.duration ?? undefined,
    flags: { [MODULE_ID]: { status: status.id } },
  };
  await actor.createEmbeddedDocuments("ActiveEffect", [/** @type {never} */ (data)], options);
  return true;
}
