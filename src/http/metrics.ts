/**
 * The service's Prometheus metrics (prom-client), one registry per app: tests that build several
 * apps in one process each count their own, and nothing is global. `GET /metrics` serves them on
 * the listener that serves the operator API, behind the operator token (docs/operations.md#metrics).
 *
 * Every label value comes from a closed set (a route's pattern, a status class, an outcome, a job
 * kind, a piece status): never an id, so the number of series stays bounded.
 */
import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { type Database, queryRows, sql } from "../db/database.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import type { Renderer } from "../render/renderer.ts";
import { registerAdminGuard } from "./admin-guard.ts";

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<"route" | "method" | "status_class">;
  /** Accepted events (202), by what happened to them. */
  readonly eventsAccepted: Counter<"outcome">;
  readonly webhookDeliveries: Counter<"outcome">;
  readonly renderDuration: Histogram<"kind">;
  readonly emails: Counter<"outcome">;
  /** The database-derived gauges read their values from here at scrape time (see watchDatabase). */
  watchDatabase(source: DatabaseGaugeSource): void;
  /**
   * The embedded database's backups (porchlight_backup_*), read at scrape time. Only an instance
   * that takes backups calls it: on PostgreSQL the series do not exist, rather than read 0 (which
   * an alert on the last backup's age would take for a backup never made).
   */
  watchBackups(source: BackupGaugeSource): void;
  /**
   * The rate limits' counter store (porchlight_rate_limit_store_up), asked at scrape time. Only a
   * limiter with a store of its own (Redis) has one: without REDIS_URL the series does not exist.
   */
  watchRateLimitStore(limiter: Pick<RateLimiter, "storeAnswers">): void;
}

export interface BackupGaugeSource {
  /** When the newest backup on disk was taken (null: none). */
  lastSuccessAt(): Promise<Date | null>;
  /** Backups that failed since the process started. */
  failures(): { scheduled: number; requested: number };
}

export interface DatabaseGaugeSource {
  database: Database;
  clock: Clock;
}

/** Database-derived gauges are read at most this often, however often they are scraped. */
export const DATABASE_GAUGES_CACHE_MS = 5_000;

interface DatabaseSnapshot {
  jobs: { kind: string; status: string; count: number; oldestDueSeconds: number | null }[];
  pieces: { status: string; count: number }[];
}

async function readSnapshot({ database, clock }: DatabaseGaugeSource): Promise<DatabaseSnapshot> {
  const now = clock.now();
  // Only unfinished jobs: the partial index jobs_ready_by_kind holds exactly these rows.
  const jobs = await queryRows<{ kind: string; status: string; n: string; oldest_due: Date | string | null }>(
    database.db,
    sql`SELECT kind, status, count(*) AS n,
               min(run_at) FILTER (WHERE status = 'pending' AND run_at <= ${now.toISOString()}::timestamptz) AS oldest_due
          FROM jobs WHERE status IN ('pending', 'running') GROUP BY kind, status`,
  );
  // The counts kept on write (migrations/0338), not a count of every piece ever mailed.
  const pieces = await queryRows<{ status: string; n: string }>(
    database.db,
    sql`SELECT status, sum(pieces) AS n FROM piece_status_counts GROUP BY status HAVING sum(pieces) <> 0`,
  );
  return {
    jobs: jobs.map((row) => ({
      kind: row.kind,
      status: row.status,
      count: Number(row.n),
      oldestDueSeconds:
        row.oldest_due === null ? null : (now.getTime() - new Date(row.oldest_due).getTime()) / 1000,
    })),
    pieces: pieces.map((row) => ({ status: row.status, count: Number(row.n) })),
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "porchlight_" });
  let source: DatabaseGaugeSource | undefined;
  let cached: { at: number; snapshot: Promise<DatabaseSnapshot> } | undefined;
  const snapshot = (): Promise<DatabaseSnapshot> | undefined => {
    if (!source) return undefined;
    const at = Date.now();
    if (!cached || at - cached.at >= DATABASE_GAUGES_CACHE_MS) {
      const reading = readSnapshot(source);
      cached = { at, snapshot: reading };
      // A failed read is not kept: the next scrape tries again.
      reading.catch(() => {
        if (cached?.snapshot === reading) cached = undefined;
      });
    }
    return cached.snapshot;
  };
  // A database that cannot be read leaves its series out of the scrape (and says so in
  // porchlight_database_up), rather than failing the whole scrape: the process's own figures,
  // the 5xx counts of an outage above all, are wanted most then.
  let databaseUp = true;
  const snapshotOrNone = async (): Promise<DatabaseSnapshot | undefined> => {
    try {
      const read = await snapshot();
      databaseUp = true;
      return read;
    } catch {
      databaseUp = false;
      return undefined;
    }
  };

  new Gauge({
    name: "porchlight_database_up",
    help: "1 when the database answered the scrape's reads (read at most every 5 s), 0 when it could not be read: porchlight_jobs and porchlight_pieces are then left out.",
    registers: [registry],
    async collect() {
      if (source) await snapshotOrNone();
      this.set(databaseUp ? 1 : 0);
    },
  });
  new Gauge({
    name: "porchlight_jobs",
    help: "Unfinished background jobs, by kind and status (pending or running).",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
    async collect() {
      const read = await snapshotOrNone();
      this.reset();
      for (const job of read?.jobs ?? []) this.set({ kind: job.kind, status: job.status }, job.count);
    },
  });
  new Gauge({
    name: "porchlight_jobs_oldest_due_age_seconds",
    help: "Age of the oldest pending job whose run time has come, by kind (0 when none waits).",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      const read = await snapshotOrNone();
      this.reset();
      for (const job of read?.jobs ?? []) {
        if (job.status === "pending") this.set({ kind: job.kind }, Math.max(0, job.oldestDueSeconds ?? 0));
      }
    },
  });
  new Gauge({
    name: "porchlight_pieces",
    help: "Mail pieces, by status.",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const read = await snapshotOrNone();
      this.reset();
      for (const piece of read?.pieces ?? []) this.set({ status: piece.status }, piece.count);
    },
  });

  let backupSource: BackupGaugeSource | undefined;
  const registerBackupMetrics = () => {
    new Gauge({
      name: "porchlight_backup_last_success_timestamp_seconds",
      help: "When the newest backup of the embedded database in DATA_DIR/backups/ was taken, in Unix seconds (0: none yet).",
      registers: [registry],
      async collect() {
        // A backups folder that cannot be read keeps the last value: the scrape still answers.
        if (!backupSource) return;
        const at = await backupSource.lastSuccessAt().catch(() => undefined);
        if (at !== undefined) this.set((at?.getTime() ?? 0) / 1000);
      },
    });
    new Counter({
      name: "porchlight_backup_failures_total",
      help: "Backups of the embedded database that failed since the process started, by trigger: scheduled (BACKUP_INTERVAL_HOURS) or requested (POST /admin/v1/backups).",
      labelNames: ["trigger"] as const,
      registers: [registry],
      collect() {
        if (!backupSource) return;
        const failures = backupSource.failures();
        // Both series from the start at 0, so that increase() sees the first failure.
        this.reset();
        this.inc({ trigger: "scheduled" }, failures.scheduled);
        this.inc({ trigger: "requested" }, failures.requested);
      },
    });
  };

  let rateLimitStore: Pick<RateLimiter, "storeAnswers"> | undefined;
  const registerRateLimitStoreMetric = () => {
    new Gauge({
      name: "porchlight_rate_limit_store_up",
      help: "1 when the rate limits' counter store (REDIS_URL's Redis) answered the scrape's PING, 0 when it did not: the rate limits are then not enforced (every request is allowed, fail open). Absent without REDIS_URL.",
      registers: [registry],
      async collect() {
        const answers = await rateLimitStore?.storeAnswers?.().catch(() => false);
        this.set(answers ? 1 : 0);
      },
    });
  };

  return {
    registry,
    httpRequestDuration: new Histogram({
      name: "porchlight_http_request_duration_seconds",
      help: "HTTP requests, by route pattern, method and status class, from arrival to response.",
      labelNames: ["route", "method", "status_class"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    eventsAccepted: new Counter({
      name: "porchlight_events_accepted_total",
      help: "Events answered 202, by outcome: queued (a card was queued), duplicate, dry_run, no_automation (none bound), or the first automation's reason.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: "porchlight_webhook_deliveries_total",
      help: "Lead webhook delivery attempts, by outcome: delivered (2xx), refused (other status), failed (no answer).",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    renderDuration: new Histogram({
      name: "porchlight_render_duration_seconds",
      help: "Time to draw one card's PDFs or proof, by kind.",
      labelNames: ["kind"] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    emails: new Counter({
      name: "porchlight_emails_total",
      help: "The app's emails (invitations, password resets), by outcome: sent or failed.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    watchDatabase(next) {
      source = next;
      cached = undefined;
    },
    watchBackups(next) {
      if (!backupSource) registerBackupMetrics();
      backupSource = next;
    },
    watchRateLimitStore(limiter) {
      if (!limiter.storeAnswers) return;
      if (!rateLimitStore) registerRateLimitStoreMetric();
      rateLimitStore = limiter;
    },
  };
}

/** `2xx`, `4xx`, …: a bounded label. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * Times every request of the app by its route pattern (`/api/v1/events`), never its raw URL. A
 * callback hook: nothing here waits, and an async hook costs every request a promise.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequestDuration.observe(
      {
        route: request.routeOptions.url ?? "unmatched",
        method: request.method,
        status_class: statusClass(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/** `GET /metrics` in Prometheus text, behind the operator token (the operator API's guard). */
export async function registerMetricsRoute(
  app: FastifyInstance,
  deps: { metrics: Metrics; config: Pick<Config, "adminToken" | "trustProxy">; limiter: RateLimiter },
): Promise<void> {
  // The limiter that guards /metrics is the process's: its counter store is watched here.
  deps.metrics.watchRateLimitStore(deps.limiter);
  await app.register(async (scope) => {
    registerAdminGuard(scope, {
      adminToken: deps.config.adminToken,
      limiter: deps.limiter,
      trustProxy: deps.config.trustProxy,
    });
    scope.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      const body = await deps.metrics.registry.metrics();
      return reply.type(deps.metrics.registry.contentType).send(body);
    });
  });
}

/** The render pool, each card's drawing timed (porchlight_render_duration_seconds). */
export function measuredRenderer(renderer: Renderer, metrics: Pick<Metrics, "renderDuration">): Renderer {
  const timed = async <T>(kind: string, draw: () => Promise<T>): Promise<T> => {
    const stop = metrics.renderDuration.startTimer({ kind });
    try {
      return await draw();
    } finally {
      stop();
    }
  };
  return {
    printFiles: (card, options) => timed("print_files", () => renderer.printFiles(card, options)),
    proof: (card, format) => timed("proof", () => renderer.proof(card, format)),
    sides: (card, resolution) => timed("proof", () => renderer.sides(card, resolution)),
    side: (card, side, resolution) => timed("proof", () => renderer.side(card, side, resolution)),
    preview: (card, side) => timed("proof", () => renderer.preview(card, side)),
    fit: (template, sender) => renderer.fit(template, sender),
    warm: () => renderer.warm(),
    close: () => renderer.close(),
  };
}
