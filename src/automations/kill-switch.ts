import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { createExpiringCache } from "../db/expiring-cache.ts";
import { readPlatformSetting, writePlatformSetting } from "../db/platform-settings.ts";
import { automationsDisabled } from "../errors.ts";

/** The platform setting that holds the switch. */
const SETTING_KEY = "automations";

/** How stale another instance's view of the switch may be. */
export const KILL_SWITCH_CACHE_MS = 1_000;

export interface KillSwitch {
  isPaused(): Promise<boolean>;
  /** Throws 503 automations_disabled while paused. */
  assertRunning(): Promise<void>;
  setPaused(paused: boolean): Promise<boolean>;
}

export function createKillSwitch(deps: { db: Queryable; clock: Clock }): KillSwitch {
  // Shared reads: when the cached answer expires under load, the events waiting on it make one
  // query between them, not one each.
  const cache = createExpiringCache<boolean>({
    clock: deps.clock,
    ttlMs: KILL_SWITCH_CACHE_MS,
    maxEntries: 1,
  });

  async function readPaused(): Promise<boolean> {
    const setting = await readPlatformSetting<{ paused?: boolean }>(deps.db, SETTING_KEY);
    return setting?.paused === true;
  }

  const isPaused = () => cache.get(SETTING_KEY, readPaused);

  return {
    isPaused,
    async assertRunning() {
      if (await isPaused()) throw automationsDisabled();
    },
    async setPaused(paused) {
      await writePlatformSetting(deps.db, SETTING_KEY, { paused });
      // Also keeps a read that began before the write from caching the old answer.
      cache.clear();
      return paused;
    },
  };
}
