import { rateLimited } from "../errors.ts";
import type { CountedHit, RateLimitDecision, RateLimiter, RateLimitHit } from "./rate-limiter.ts";

/** A limit as a route declares it: the bucket counted in, and how many hits a window of that length takes. */
export type RateLimitRule = Omit<RateLimitHit, "id">;

/**
 * Counts one hit of `id` under `rule`, and when the limit refuses it throws the app's 429
 * (`rate_limited`, with Retry-After at the window's end and `detail` as its text).
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  rule: RateLimitRule,
  id: string,
  detail?: string,
): Promise<void> {
  refuseOverLimit(await limiter.hit(rule.bucket, id, rule.limit, rule.windowSeconds), detail);
}

/** `enforceRateLimit`, answering the hit it counted, to be given back if the request proves no hit. */
export async function enforceRateLimitGivingBack(
  limiter: RateLimiter,
  rule: RateLimitRule,
  id: string,
  detail?: string,
): Promise<CountedHit> {
  const counted = await limiter.countHit({ ...rule, id });
  refuseOverLimit(counted.decision, detail);
  return counted;
}

function refuseOverLimit(decision: RateLimitDecision, detail: string | undefined) {
  if (!decision.allowed) throw rateLimited(decision.secondsToWindowEnd, detail);
}
