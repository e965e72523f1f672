import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { type Automation, findBoundAutomations } from "./automations.ts";

/** How stale another instance's view of an automation change may be. */
export const AUTOMATION_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 50_000;

/**
 * The enabled automations bound to an event type, read once per second per (org, event type)
 * instead of once per event. Writes through the operator API in this process invalidate the org
 * at once; other instances see a change within AUTOMATION_CACHE_TTL_MS.
 */
export interface BoundAutomationCache {
  find(orgId: string, eventType: string): Promise<Automation[]>;
  invalidate(orgId: string): void;
}

export function createBoundAutomationCache(deps: { db: Queryable; clock: Clock }): BoundAutomationCache {
  const entries = new Map<string, { orgId: string; automations: Automation[]; until: number }>();
  return {
    async find(orgId, eventType) {
      const key = `${orgId} ${eventType}`;
      const now = deps.clock.now().getTime();
      const cached = entries.get(key);
      if (cached && cached.until > now) return cached.automations;
      const automations = await findBoundAutomations(deps.db, orgId, eventType);
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, { orgId, automations, until: now + AUTOMATION_CACHE_TTL_MS });
      return automations;
    },
    invalidate(orgId) {
      for (const [key, entry] of entries) if (entry.orgId === orgId) entries.delete(key);
    },
  };
}
