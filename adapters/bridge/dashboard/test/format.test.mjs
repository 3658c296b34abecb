// The page's pure helpers (src/format.js) under Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { duration, eventId, feet, hue, initials, mergeLog, secondsLeft, side } from "../src/format.js";

test("feet and countdowns", () => {
  assert.equal(feet(25), "25 ft");
  assert.equal(feet(7.25), "7.3 ft");
  assert.equal(feet(null), "free");
  assert.equal(feet(3, "m"), "3 m");
  assert.equal(secondsLeft(null, 10), null);
  assert.equal(secondsLeft(100.2, 58.5), 42);
  assert.equal(secondsLeft(10, 20), 0);
  assert.equal(duration(42), "42 s");
  assert.equal(duration(65), "1 min 05 s");
});

test("tokens: initials and sides", () => {
  assert.equal(initials("Kevin"), "Ke");
  assert.equal(initials("big mac"), "BM");
  assert.equal(initials("  "), "?");
  assert.deepEqual([side(-1), side(0), side(2)], ["hostile", "neutral", "friendly"]);
});

test("event ids are fresh and region hues stable", () => {
  const a = eventId();
  assert.match(a, /^dash-[0-9a-f]{32}$/);
  assert.notEqual(a, eventId());
  assert.equal(hue("corner"), hue("corner"));
  assert.ok(hue("corner") >= 0 && hue("corner") < 360);
});

test("the chat log: a full view replaces, a later one adds what is new", () => {
  const line = (n) => ({ n, text: `line ${n}` });
  let log = mergeLog([], { log_full: false, log: [line(0), line(1)] }); // before the first view
  assert.deepEqual(log.map((l) => l.n), [0, 1]);
  log = mergeLog(log, { log_full: true, log: [line(-2), line(-1), line(0), line(1), line(2)] });
  assert.deepEqual(log.map((l) => l.n), [-2, -1, 0, 1, 2]);
  log = mergeLog(log, { log_full: false, log: [line(2), line(3)] }); // 2 came in the full view
  assert.deepEqual(log.map((l) => l.n), [-2, -1, 0, 1, 2, 3]);
  const same = mergeLog(log, { log_full: false, log: [] });
  assert.equal(same, log);
  assert.equal(mergeLog(log, { log_full: false, log: [line(4)] }, 3).length, 3);
});
