import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { createExpiringCache } from "../db/expiring-cache.ts";
import { type Automation, findBoundAutomations } from "./automations.ts";

/** How stale another instance's view of an automation change may be. */
export const AUTOMATION_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 50_000;

/**
 * The enabled automations bound to an event type, read once per second per (org, event type)
 * instead of once per event, by one query however many events wait on it. Writes through the
 * operator API in this process invalidate the org at once; other instances see a change within
 * AUTOMATION_CACHE_TTL_MS.
 */
export interface BoundAutomationCache {
  find(orgId: string, eventType: string): Promise<Automation[]>;
  invalidate(orgId: string): void;
}

export function createBoundAutomationCache(deps: { db: Queryable; clock: Clock }): BoundAutomationCache {
  const cache = createExpiringCache<Automation[]>({
    clock: deps.clock,
    ttlMs: AUTOMATION_CACHE_TTL_MS,
    maxEntries: MAX_ENTRIES,
  });
  return {
    find: (orgId, eventType) =>
      cache.get(`${orgId} ${eventType}`, () => findBoundAutomations(deps.db, orgId, eventType)),
    invalidate(orgId) {
      cache.deleteWhere((key) => key.startsWith(`${orgId} `));
    },
  };
}
