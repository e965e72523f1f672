import type { Clock } from "../clock.ts";

/**
 * A read-through cache of database lookups, trusted for `ttlMs` after the lookup began. Lookups
 * are shared: concurrent misses of one key wait on a single query (the first events of an org
 * arrive together, on every connection of its CRM), and a failed lookup is not kept, so the next
 * caller tries again. A key deleted while its lookup runs is not re-filled by that lookup, whose
 * answer may predate the change that deleted it.
 */
export interface ExpiringCache<V> {
  /** The fresh (or pending) value of `key`, if any. */
  cached(key: string): Promise<V> | undefined;
  /** The fresh value of `key` if its lookup has succeeded (never one still pending). */
  settled(key: string): { value: V } | undefined;
  /** The cached value, else `load()`'s, shared with every concurrent caller of this key. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  deleteWhere(matches: (key: string) => boolean): void;
  clear(): void;
}

interface Entry<V> {
  value: Promise<V>;
  until: number;
  /** Set once the lookup succeeded. */
  settled?: { value: V };
}

export function createExpiringCache<V>(options: {
  clock: Clock;
  ttlMs: number;
  /** Past this many keys the cache starts over (bounded memory, however many keys are tried). */
  maxEntries: number;
}): ExpiringCache<V> {
  const entries = new Map<string, Entry<V>>();

  function fresh(key: string): Entry<V> | undefined {
    const entry = entries.get(key);
    return entry && entry.until > options.clock.now().getTime() ? entry : undefined;
  }

  function startLoad(key: string, load: () => Promise<V>): Promise<V> {
    const entry: Entry<V> = { value: load(), until: options.clock.now().getTime() + options.ttlMs };
    if (entries.size >= options.maxEntries) entries.clear();
    entries.set(key, entry);
    entry.value.then(
      (value) => {
        entry.settled = { value };
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return entry.value;
  }

  return {
    cached: (key) => fresh(key)?.value,
    settled: (key) => fresh(key)?.settled,
    get: (key, load) => fresh(key)?.value ?? startLoad(key, load),
    deleteWhere(matches) {
      for (const key of entries.keys()) if (matches(key)) entries.delete(key);
    },
    clear: () => entries.clear(),
  };
}
