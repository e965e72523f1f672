import { rateLimited } from "../errors.ts";
import type { RateLimiter, RateLimitHit } from "./rate-limiter.ts";

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
  const decision = await limiter.hit(rule.bucket, id, rule.limit, rule.windowSeconds);
  if (!decision.allowed) throw rateLimited(decision.secondsToWindowEnd, detail);
}
