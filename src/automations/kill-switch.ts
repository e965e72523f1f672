import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { automationsDisabled } from "../errors.ts";

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
    const row = await queryOne<{ value: { paused?: boolean } }>(
      deps.db,
      sql`SELECT value FROM platform_settings WHERE key = 'automations'`,
    );
    const paused = row?.value?.paused === true;
    cached = { paused, until: now + KILL_SWITCH_CACHE_MS };
    return paused;
  }

  return {
    isPaused,
    async assertRunning() {
      if (await isPaused()) throw automationsDisabled();
    },
    async setPaused(paused) {
      await deps.db.execute(
        sql`INSERT INTO platform_settings (key, value, updated_at)
            VALUES ('automations', ${JSON.stringify({ paused })}::jsonb, now())
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      );
      cached = undefined;
      return paused;
    },
  };
}
