import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { createMicroBatcher } from "../db/micro-batch.ts";
import { briefCause } from "../errors.ts";

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests counted in this window, including this one (0 when the counter store failed). */
  count: number;
  /** Seconds until the current window ends (at least 1). */
  secondsToWindowEnd: number;
}

export interface RateLimitHit {
  bucket: string;
  id: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters whose windows are aligned to multiples of their length since the epoch
 * (a 60 s window resets on the minute), as the spec's limits require. Common libraries start
 * the window at the first hit instead, hence this small module.
 */
export interface RateLimiter {
  hit(bucket: string, id: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /**
   * Counts `hits` in order, stopping after the first one refused: exactly what awaiting `hit` for
   * each in turn decides (a request refused per IP is not counted against its org), in one
   * round trip to the counter store. One decision per hit counted.
   */
  hitInOrder(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]>;
  /**
   * Counts one hit, as `hit` does, and keeps the way to take it back: for a request found only
   * afterwards not to be what the limit counts. Giving back takes one from the window the hit was
   * counted in (nothing once that window has ended, or when the hit was not counted: failing open).
   */
  countHit(hit: RateLimitHit): Promise<CountedHit>;
  /** The current window's count, without counting (0 when the counter store failed). */
  peek(bucket: string, id: string, windowSeconds: number): Promise<Omit<RateLimitDecision, "allowed">>;
  /**
   * Whether the shared counter store (Redis) answers now: one PING, within the reply timeout (false
   * at once in the second after a failed call, as a request would fail open). Absent for counters
   * kept in this process, which have no store to lose (porchlight_rate_limit_store_up).
   */
  storeAnswers?(): Promise<boolean>;
  close(): Promise<void>;
}

/** A hit that was counted, and its undoing. */
export interface CountedHit {
  decision: RateLimitDecision;
  giveBack(): Promise<void>;
}

/** `hit`, as `hitInOrder` of that one hit. */
const oneHitOf =
  (hitInOrder: RateLimiter["hitInOrder"]): RateLimiter["hit"] =>
  async (bucket, id, limit, windowSeconds) =>
    (await hitInOrder([{ bucket, id, limit, windowSeconds }]))[0]!;

function windowOf(clock: Clock, windowSeconds: number) {
  return windowAt(clock.now().getTime(), windowSeconds);
}

function windowAt(nowMs: number, windowSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const start = Math.floor(nowMs / windowMs) * windowMs;
  return { start, secondsToEnd: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
}

/**
 * Counters grouped by window: a window that has ended is dropped whole, so no request pays for a
 * sweep over every client address seen in the last minutes.
 */
export function createMemoryRateLimiter(clock: Clock): RateLimiter {
  const windows = new Map<string, { endsAt: number; counts: Map<string, number> }>();
  const dropEnded = (now: number) => {
    for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
  };
  /** Counted synchronously: the hits of one request happen together, as Redis's script makes them. */
  function countHit({ bucket, id, limit, windowSeconds }: RateLimitHit, nowMs: number): RateLimitDecision {
    const window = windowAt(nowMs, windowSeconds);
    const windowKey = `${windowSeconds}:${window.start}`;
    let current = windows.get(windowKey);
    if (!current) {
      current = { endsAt: window.start + windowSeconds * 1000, counts: new Map() };
      windows.set(windowKey, current);
    }
    const key = `${bucket}:${id}`;
    const count = (current.counts.get(key) ?? 0) + 1;
    current.counts.set(key, count);
    return { allowed: count <= limit, count, secondsToWindowEnd: window.secondsToEnd };
  }

  async function hitInOrder(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
    // One clock read per request, however many hits it counts.
    const nowMs = clock.now().getTime();
    dropEnded(nowMs);
    const decisions: RateLimitDecision[] = [];
    for (const hit of hits) {
      const decision = countHit(hit, nowMs);
      decisions.push(decision);
      if (!decision.allowed) break;
    }
    return decisions;
  }

  async function countOneHit(hit: RateLimitHit): Promise<CountedHit> {
    const nowMs = clock.now().getTime();
    dropEnded(nowMs);
    const decision = countHit(hit, nowMs);
    const counts = windows.get(`${hit.windowSeconds}:${windowAt(nowMs, hit.windowSeconds).start}`)!.counts;
    const key = `${hit.bucket}:${hit.id}`;
    return {
      decision,
      async giveBack() {
        const count = counts.get(key) ?? 0;
        if (count > 0) counts.set(key, count - 1);
      },
    };
  }

  return {
    hit: oneHitOf(hitInOrder),
    hitInOrder,
    countHit: countOneHit,
    async peek(bucket, id, windowSeconds) {
      const window = windowOf(clock, windowSeconds);
      const count = windows.get(`${windowSeconds}:${window.start}`)?.counts.get(`${bucket}:${id}`) ?? 0;
      return { count, secondsToWindowEnd: window.secondsToEnd };
    },
    async close() {
      windows.clear();
    },
  };
}

/**
 * After a failed call, requests fail open at once for this long instead of each waiting out the
 * command timeout: a frozen Redis added about 1.4 s to every request. Then one request probes.
 */
const FAIL_OPEN_PAUSE_MS = 1_000;

/**
 * Counts the KEYS of each group in order (INCR, and the key's expiry set when the increment created
 * it), stopping a group after its first count over the limit; returns one count per key, 0 for a key
 * not counted. ARGV: the number of groups, each group's size, then each key's limit, then each key's
 * expiry in seconds. A group is one request's hits; the requests that arrive together share the call.
 * A script runs with no other command in between, and EXPIRE of a number does not fail: a key never
 * stays without its expiry, so setting it on the first count is enough.
 */
const COUNT_GROUPS_LUA = `
local groups = tonumber(ARGV[1])
local n = #KEYS
local counts = {}
local key = 1
for group = 1, groups do
  local last = key + tonumber(ARGV[1 + group]) - 1
  local refused = false
  for i = key, last do
    if refused then
      counts[i] = 0
    else
      local count = redis.call('INCR', KEYS[i])
      if count == 1 then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[1 + groups + n + i])) end
      counts[i] = count
      refused = count > tonumber(ARGV[1 + groups + i])
    end
  end
  key = last + 1
end
return counts`;

/**
 * Takes one from KEYS[1] while it counts any: never below zero, and a key whose window ended and
 * expired is not made again (without its expiry).
 */
const GIVE_BACK_LUA = `
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

/** The Redis commands the limiter uses: `countGroups` is COUNT_GROUPS_LUA, `giveBack` GIVE_BACK_LUA (defineRedisCounters). */
export interface RedisCounters {
  /** Arguments: the number of keys, the keys, then the script's ARGV (groupArguments). */
  countGroups(...numberOfKeysKeysThenArgs: (string | number)[]): Promise<number[]>;
  giveBack(key: string): Promise<number>;
  get(key: string): Promise<string | null>;
  /** PONG (ioredis's ping); without it, storeAnswers says whether the last call was answered. */
  ping?(): Promise<string>;
  disconnect(): void;
}

/** Registers the limiter's script on a client (run by EVALSHA, loaded again after a Redis restart). */
export function defineRedisCounters(redis: Redis): RedisCounters {
  redis.defineCommand("countGroups", { lua: COUNT_GROUPS_LUA });
  redis.defineCommand("giveBack", { lua: GIVE_BACK_LUA, numberOfKeys: 1 });
  return redis as unknown as RedisCounters;
}

/** One request's hits as the script counts them. */
interface HitGroup {
  keys: string[];
  limits: number[];
  expirySeconds: number[];
}

/** The command's arguments for several groups, in the script's order. */
function groupArguments(groups: HitGroup[]): (string | number)[] {
  const keys = groups.flatMap((group) => group.keys);
  return [
    keys.length,
    ...keys,
    groups.length,
    ...groups.map((group) => group.keys.length),
    ...groups.flatMap((group) => group.limits),
    ...groups.flatMap((group) => group.expirySeconds),
  ];
}

/** The script's flat counts, one array per group, keys not counted (0) left out. */
function countsByGroup(counts: number[], groups: HitGroup[]): number[][] {
  let next = 0;
  return groups.map((group) => {
    const mine = counts.slice(next, next + group.keys.length);
    next += group.keys.length;
    const firstUncounted = mine.indexOf(0);
    return firstUncounted === -1 ? mine : mine.slice(0, firstUncounted);
  });
}

const isCountsReply = (keys: number) => (reply: unknown) =>
  Array.isArray(reply) &&
  reply.length === keys &&
  reply.every((count) => Number.isInteger(count) && count >= 0);

/**
 * Exact counts shared by every instance. When Redis fails the request is allowed (fail open)
 * and a warning is logged at most once every 10 s: an outage of the counter store must never
 * turn into a bogus 429.
 */
export function createRedisRateLimiter(
  redis: RedisCounters,
  clock: Clock,
  logger: Logger,
  options: { replyTimeoutMs?: number; where?: string } = {},
): RateLimiter & { checkAtStart(waitMs: number, connectionError?: () => unknown): Promise<boolean> } {
  const replyTimeoutMs = options.replyTimeoutMs ?? 500;
  // Named in the outage line (host and port, never the URL's password).
  const redisAt = options.where ? { redis: options.where } : {};
  let lastWarning = 0;
  let pausedUntil = 0;
  let failing = false;
  // The start's check found no Redis, and none has answered since.
  let unansweredSinceStart = false;
  // While failing, one request at a time asks Redis whether it is back (a half-open breaker): the
  // others fail open at once instead of each waiting out the reply timeout behind a frozen Redis.
  let probing = false;
  const keyOf = (bucket: string, id: string, windowStart: number) => `rl:${bucket}:${id}:${windowStart}`;

  /** What `command` answers, or undefined when Redis failed (the caller fails open). */
  async function ask<T>(command: () => Promise<T>, valid: (reply: T) => boolean) {
    if (failing && (probing || clock.now().getTime() < pausedUntil)) return undefined;
    const probe = failing;
    if (probe) probing = true;
    try {
      const reply = await withReplyTimeout(command(), replyTimeoutMs);
      if (!valid(reply)) throw new Error("unexpected reply from Redis");
      if (failing) {
        failing = false;
        logger.info(
          redisAt,
          unansweredSinceStart
            ? "rate-limit counter store answers (it did not at start): rate limits are enforced from now on"
            : "rate-limit counter store answers again; counting exactly",
        );
        unansweredSinceStart = false;
      }
      return reply;
    } catch (error) {
      failing = true;
      const now = clock.now().getTime();
      pausedUntil = now + FAIL_OPEN_PAUSE_MS;
      if (now - lastWarning > 10_000) {
        lastWarning = now;
        // An outage line as the others are (docs/operations.md): its short cause, never a stack.
        logger.warn(
          { ...redisAt, err: { type: "RedisUnavailable", outage: true, ...briefCause(error) } },
          "rate-limit counter store unavailable; allowing requests (fail open)",
        );
      }
      return undefined;
    } finally {
      if (probe) probing = false;
    }
  }

  /** Each group's counts, or undefined for every group when Redis failed (they fail open). */
  async function countGroups(groups: HitGroup[]): Promise<(number[] | undefined)[]> {
    const keys = groups.reduce((sum, group) => sum + group.keys.length, 0);
    const counts = await ask(() => redis.countGroups(...groupArguments(groups)), isCountsReply(keys));
    return counts === undefined ? groups.map(() => undefined) : countsByGroup(counts, groups);
  }

  // The requests of one event-loop turn share one call. No limit on calls in flight: each is bounded
  // by the reply timeout, so a slow Redis never queues a request behind other requests' calls.
  const batcher = createMicroBatcher<HitGroup, number[] | undefined>({
    flush: countGroups,
    maxBatch: 256,
    maxInFlight: Number.POSITIVE_INFINITY,
  });

  /** One request's hits as the script counts them, each in its window at `nowMs`. */
  function groupOf(hits: readonly RateLimitHit[], nowMs: number) {
    const windows = hits.map((hit) => windowAt(nowMs, hit.windowSeconds));
    const group: HitGroup = {
      keys: hits.map((hit, index) => keyOf(hit.bucket, hit.id, windows[index]!.start)),
      limits: hits.map((hit) => hit.limit),
      expirySeconds: hits.map((hit) => hit.windowSeconds + 5),
    };
    return { windows, group };
  }

  // While Redis is failing a request is not batched: it fails open at once, or is the one probe.
  const countsOf = (group: HitGroup) =>
    failing ? countGroups([group]).then(([counts]) => counts) : batcher.submit(group);

  function decisionsOf(
    hits: readonly RateLimitHit[],
    windows: { secondsToEnd: number }[],
    counts: number[] | undefined,
  ): RateLimitDecision[] {
    // Failing open: every hit allowed, none counted.
    if (counts === undefined) {
      return windows.map((window) => ({ allowed: true, count: 0, secondsToWindowEnd: window.secondsToEnd }));
    }
    return counts.map((count, index) => ({
      allowed: count <= hits[index]!.limit,
      count,
      secondsToWindowEnd: windows[index]!.secondsToEnd,
    }));
  }

  async function hitInOrder(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
    if (hits.length === 0) return [];
    const { windows, group } = groupOf(hits, clock.now().getTime());
    return decisionsOf(hits, windows, await countsOf(group));
  }

  return {
    hit: oneHitOf(hitInOrder),
    hitInOrder,
    async countHit(hit) {
      const { windows, group } = groupOf([hit], clock.now().getTime());
      const [decision] = decisionsOf([hit], windows, await countsOf(group));
      return {
        decision: decision!,
        async giveBack() {
          // A hit counted while failing open (count 0) was never in the store.
          if (decision!.count > 0) await ask(() => redis.giveBack(group.keys[0]!), Number.isInteger);
        },
      };
    },
    async peek(bucket, id, windowSeconds) {
      const window = windowOf(clock, windowSeconds);
      const count = await ask(
        async () => Number((await redis.get(keyOf(bucket, id, window.start))) ?? 0),
        Number.isFinite,
      );
      return { count: count ?? 0, secondsToWindowEnd: window.secondsToEnd };
    },
    async storeAnswers() {
      if (!redis.ping) return !failing;
      return (
        (await ask(
          () => redis.ping!(),
          (reply) => reply === "PONG",
        )) !== undefined
      );
    },
    /**
     * At start: PING until Redis answers or `waitMs` has passed (the client is still connecting at
     * first, and refuses commands meanwhile). A Redis that does not answer is one error line: a
     * mistyped or dead REDIS_URL otherwise showed only as a warning at the first request, while
     * every limit was off. `connectionError`: the client's last failure to connect, the cause named
     * rather than its refusal of commands while not connected.
     */
    async checkAtStart(waitMs: number, connectionError?: () => unknown) {
      if (!redis.ping) return true;
      const deadline = performance.now() + waitMs;
      let cause: unknown;
      for (;;) {
        const left = deadline - performance.now();
        try {
          const reply = await withReplyTimeout(redis.ping(), Math.max(1, Math.min(left, replyTimeoutMs)));
          if (reply === "PONG") return true;
          cause = new Error("unexpected reply from Redis");
        } catch (error) {
          cause = error;
        }
        if (deadline - performance.now() <= 100) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Failing, but with no pause yet: the first request asks Redis itself (and, failing, logs the
      // requests' fail-open warning as before); then one request a second probes.
      failing = true;
      unansweredSinceStart = true;
      logger.error(
        {
          ...redisAt,
          err: { type: "RedisUnavailable", outage: true, ...briefCause(connectionError?.() ?? cause) },
        },
        `rate-limit counter store (REDIS_URL, ${options.where ?? "Redis"}) does not answer: rate limits are NOT enforced until it answers (every request is allowed meanwhile)`,
      );
      return false;
    },
    async close() {
      await batcher.drain();
      redis.disconnect();
    },
  };
}

/** How long a start waits for REDIS_URL's Redis to answer before saying it does not (and going on). */
export const REDIS_START_CHECK_MS = 2_000;

/** `host:port` of a Redis URL: what the log names, never the URL's password. */
export function redisWhere(redisUrl: string): string {
  const { host, port } = new URL(redisUrl);
  return `${host || "127.0.0.1"}${port ? "" : ":6379"}`;
}

/**
 * The process's limiter, as the start makes it: exact counters shared through Redis when REDIS_URL
 * is set, else counted in this process. With Redis, the start asks it once (REDIS_START_CHECK_MS)
 * and logs an error when it does not answer. The Redis client is loaded only when it is used (a
 * process without Redis spares its start-up).
 */
export async function createConfiguredRateLimiter(
  config: Pick<Config, "redisUrl" | "databaseUrl">,
  clock: Clock,
  logger: Logger,
  options: { startCheckMs?: number } = {},
): Promise<RateLimiter> {
  if (config.redisUrl) {
    const { Redis } = await import("ioredis");
    const redis = new Redis(config.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // No auto-pipelining: the limiter already sends the counts of one event-loop turn as one
      // command, and wrapping that command in a pipeline cost ~10 µs of CPU a request.
      enableAutoPipelining: false,
      // A backstop that clears commands of a frozen server; the limiter gives up on a reply after 500 ms.
      commandTimeout: 5_000,
    });
    let connectionError: Error | undefined;
    redis.on("error", (error) => {
      connectionError = error;
      logger.debug({ err: error }, "redis error");
    });
    redis.on("ready", () => {
      connectionError = undefined;
    });
    const limiter = createRedisRateLimiter(defineRedisCounters(redis), clock, logger, {
      where: redisWhere(config.redisUrl),
    });
    await limiter.checkAtStart(options.startCheckMs ?? REDIS_START_CHECK_MS, () => connectionError);
    return limiter;
  }
  if (config.databaseUrl) {
    logger.warn("REDIS_URL is not set: rate limits are counted per instance, not across instances");
  }
  return createMemoryRateLimiter(clock);
}

/**
 * Rejects when no reply came within `ms`, judged only after the event loop has read the sockets
 * once more. A timer fires before pending I/O is read: when the process was busy past the
 * deadline (a large batch parsed synchronously), a reply already waiting in the socket would
 * otherwise count as an outage and switch the limits off for a second (ioredis's own
 * commandTimeout does exactly that).
 */
function withReplyTimeout<T>(reply: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const giveUp = () => settle(() => reject(new Error(`no reply from Redis within ${ms} ms`)));
    // A reply that reached the socket while the event loop was busy is read in the poll phase
    // after the timers: setImmediate runs after that poll, the nested one after the next loop
    // turn's poll. Counting loop turns (not milliseconds) gives a reply two reads of the sockets
    // (one more hop, such as a local proxy's, still counts) however slow the machine is.
    const timer = setTimeout(() => setImmediate(() => setImmediate(giveUp)), ms);
    reply.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
