import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixedClock } from "../../src/clock.ts";
import { createExpiringCache } from "../../src/db/expiring-cache.ts";

/** A lookup that answers only when told to, and counts how often it was started. */
function controlledLoad<V>() {
  const pending: { resolve: (value: V) => void; reject: (error: Error) => void }[] = [];
  const load = () =>
    new Promise<V>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { load, pending, started: () => pending.length };
}

const setup = () => {
  const clock = fixedClock("2026-11-25T10:00:00Z");
  return { clock, cache: createExpiringCache<string>({ clock, ttlMs: 1_000, maxEntries: 3 }) };
};

describe("expiring cache of lookups", () => {
  it("holds a settled value only once its lookup succeeded, never a pending or failed one", async () => {
    const { clock, cache } = setup();
    const lookup = controlledLoad<string>();
    const first = cache.get("k", lookup.load);
    assert.equal(cache.settled("k"), undefined, "pending");
    lookup.pending[0]!.reject(new Error("database unreachable"));
    await assert.rejects(first);
    assert.equal(cache.settled("k"), undefined, "failed");
    const second = cache.get("k", lookup.load);
    lookup.pending[1]!.resolve("the key's record");
    await second;
    assert.deepEqual(cache.settled("k"), { value: "the key's record" });
    clock.advance(1_000);
    assert.equal(cache.settled("k"), undefined, "expired with its entry");
  });

  it("runs one lookup for concurrent misses of a key and gives every caller its answer", async () => {
    const { cache } = setup();
    const lookup = controlledLoad<string>();
    const callers = Array.from({ length: 10 }, () => cache.get("org-1", lookup.load));
    assert.equal(lookup.started(), 1);
    lookup.pending[0]!.resolve("automations of org-1");
    assert.deepEqual(await Promise.all(callers), Array(10).fill("automations of org-1"));
  });

  it("answers from the cache until the TTL has passed since the lookup began, then looks again", async () => {
    const { clock, cache } = setup();
    let loads = 0;
    const load = async () => `answer ${++loads}`;
    assert.equal(await cache.get("k", load), "answer 1");
    clock.advance(999);
    assert.equal(await cache.get("k", load), "answer 1");
    clock.advance(1);
    assert.equal(cache.cached("k"), undefined);
    assert.equal(await cache.get("k", load), "answer 2");
  });

  it("keeps no failed lookup: its waiters see the error, the next caller looks again", async () => {
    const { cache } = setup();
    const lookup = controlledLoad<string>();
    const first = cache.get("k", lookup.load);
    const second = cache.get("k", lookup.load);
    lookup.pending[0]!.reject(new Error("connection refused"));
    await assert.rejects(first, /connection refused/);
    await assert.rejects(second, /connection refused/);
    assert.equal(cache.cached("k"), undefined);
    assert.equal(await cache.get("k", async () => "recovered"), "recovered");
  });

  it("does not let a lookup that began before a deletion fill the cache with its older answer", async () => {
    const { cache } = setup();
    const stale = controlledLoad<string>();
    const waiting = cache.get("org-1 job.completed", stale.load);
    cache.deleteWhere((key) => key.startsWith("org-1 "));
    const fresh = cache.get("org-1 job.completed", async () => "after the change");
    stale.pending[0]!.resolve("before the change");
    assert.equal(await waiting, "before the change");
    assert.equal(await fresh, "after the change");
    assert.equal(await cache.cached("org-1 job.completed"), "after the change");
  });

  it("starts over past its size bound, and clear() forgets everything", async () => {
    const { cache } = setup();
    for (const key of ["a", "b", "c"]) await cache.get(key, async () => key);
    await cache.get("d", async () => "d");
    assert.equal(cache.cached("a"), undefined, "the bound of 3 keys emptied the cache");
    assert.equal(await cache.cached("d"), "d");
    cache.clear();
    assert.equal(cache.cached("d"), undefined);
  });
});
