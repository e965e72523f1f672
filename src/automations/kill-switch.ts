import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
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
  let cached: { paused: boolean; until: number } | undefined;

  async function isPaused(): Promise<boolean> {
    const now = deps.clock.now().getTime();
    if (cached && cached.until > now) return cached.paused;
    const setting = await readPlatformSetting<{ paused?: boolean }>(deps.db, SETTING_KEY);
    const paused = setting?.paused === true;
    cached = { paused, until: now + KILL_SWITCH_CACHE_MS };
    return paused;
  }

  return {
    isPaused,
    async assertRunning() {
      if (await isPaused()) throw automationsDisabled();
    },
    async setPaused(paused) {
      await writePlatformSetting(deps.db, SETTING_KEY, { paused });
      cached = undefined;
      return paused;
    },
  };
}
