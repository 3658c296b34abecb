// A stand-in of TokenMod (Roll20/roll20-api-scripts: TokenMod/TokenMod.js), as far as the tests
// use it: `!token-mod --set <prop>|<value> ... --ids <id> ...` sets a token's properties with a
// script's `set` (Roll20 fires no event for it), then tells the scripts that registered with
// `TokenMod.ObserveTokenChange(fn)`: fn(token, prev), prev the token's properties before, as a
// plain object. A top-level `const`, as TokenMod itself declares it.
/* global on, getObj */
const TokenMod = (() => {
  "use strict";
  const observers = [];
  const ObserveTokenChange = (fn) => {
    if (typeof fn === "function") observers.push(fn);
  };
  const notify = (obj, prev) => observers.forEach((fn) => fn(obj, prev));
  const handle = (msg) => {
    if (msg.type !== "api" || !/^!token-mod\b/.test(msg.content)) return;
    const args = msg.content.split(/\s+--/).slice(1);
    const set = {};
    let ids = (msg.selected || []).map((s) => s._id);
    for (const arg of args) {
      const [cmd, ...rest] = arg.split(/\s+/);
      if (cmd === "ids") ids = rest;
      if (cmd === "set") {
        for (const pair of rest) {
          const [k, v] = pair.split("|");
          set[k] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
        }
      }
    }
    for (const id of ids) {
      const token = getObj("graphic", id);
      if (!token) continue;
      const prev = JSON.parse(JSON.stringify(token));
      token.set(set);
      notify(token, prev);
    }
  };
  on("ready", () => on("chat:message", handle));
  return { ObserveTokenChange };
})();
