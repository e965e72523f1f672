import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { App, Surface } from "./app.ts";
import { printAddresses, resolveAdminToken, seedDemoOnFirstRun } from "./bootstrap.ts";
import { systemClock } from "./clock.ts";
import { type Config, ConfigError, isServerRole, loadConfig, type ServerRole } from "./config.ts";
import { serverApplicationName, withApplicationName } from "./db/application-name.ts";
import { createBackups } from "./db/backups.ts";
import { refuseIfCopied } from "./db/copied-marker.ts";
import {
  DataDirInUseError,
  DataDirUnusableError,
  InterruptedRestoreError,
  lockDataDir,
  preparePrivateDataDir,
} from "./db/data-dir-lock.ts";
import {
  type Database,
  databaseReason,
  isConnectionError,
  isDatabaseMisconfigured,
  openDatabase,
  refusedStatementAdvice,
  refusedStatementCode,
} from "./db/database.ts";
import { startEmbeddedVacuum } from "./db/embedded-vacuum.ts";
import { migrate } from "./db/migrate.ts";
import { retryWhileUnavailable } from "./db/retry-while-unavailable.ts";
import { compileWasmWithOptimizingTier } from "./db/wasm-compilation.ts";
import { briefCause, systemErrorReason } from "./errors.ts";
import { startEventLoopDelayReport } from "./event-loop-delay.ts";
import { createMetrics, measuredRenderer } from "./http/metrics.ts";
import { JOBS_READY_CHANNEL, releaseJobsOfEndedProcess } from "./jobs/queue.ts";
import { createConfiguredRateLimiter } from "./limits/rate-limiter.ts";
import { createLogger, createStdoutDestination, outageErr } from "./logger.ts";
import { createMailer } from "./mail/mailer.ts";
import { createRenderPool } from "./render/renderer.ts";
import type { Readiness } from "./services.ts";

/** Requests and jobs: a query unanswered this long fails with a 503 instead of hanging. */
const SERVING_QUERY_TIMEOUT_MS = 30_000;

/**
 * Migrations may build indexes on large tables for longer than the serving timeout: on
 * PostgreSQL they run on a connection of their own without it (the embedded database has one
 * connection and no timeout).
 */
async function migrateWithoutQueryTimeout(database: Database, databaseUrl: string | undefined) {
  if (!databaseUrl) return migrate(database.db);
  const migrations = await openDatabase({ databaseUrl, poolSize: 1 });
  try {
    return await migrate(migrations.db);
  } finally {
    await migrations.close();
  }
}

/**
 * A process started before its PostgreSQL (a compose file, a node reboot, a failover) waits for it
 * with backoff, one line per try, instead of exiting at once and needing an outside restart. A
 * database that refuses us (unknown database, bad password) fails at once: waiting cannot help.
 */
function waitForDatabase<T>(start: () => Promise<T>, options: { budgetMs: number; logger: Logger }) {
  return retryWhileUnavailable(start, {
    budgetMs: options.budgetMs,
    firstDelayMs: 1_000,
    maxDelayMs: 5_000,
    giveUpOn: isDatabaseMisconfigured,
    onRetry: (error, attempt) =>
      options.logger.warn(
        { cause: briefCause(error), attempt, waitingUpToMs: options.budgetMs },
        "database not reachable yet; waiting before starting",
      ),
  });
}

/**
 * On SIGTERM or SIGINT: runs the steps in order (stop taking requests and jobs, let those in
 * flight finish, close what is open), then exits; past `shutdownTimeoutMs` it exits anyway.
 */
function stopOnSignals(
  options: { logger: Logger; shutdownTimeoutMs: number },
  steps: (() => Promise<unknown>)[],
): void {
  const { logger, shutdownTimeoutMs } = options;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const forced = setTimeout(() => {
      logger.error({ shutdownTimeoutMs }, "shutdown took too long; exiting");
      process.exit(1);
    }, shutdownTimeoutMs);
    forced.unref();
    try {
      for (const step of steps) await step();
      logger.info("shutdown complete");
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/**
 * `--role X` or `--role=X`; any other argument stops the start (a mistyped `--rol worker` started
 * the API too, and a worker pod served the public API).
 */
function parseRole(argv: string[], env: NodeJS.ProcessEnv): ServerRole {
  // `npm start --role=worker` (no `--`): npm keeps the option as its own and passes none, so the
  // start was the default one, API and workers; npm tells the script only through its environment.
  const npmsOwn = env.npm_config_role;
  if (npmsOwn !== undefined) {
    const named = isServerRole(npmsOwn) ? npmsOwn : "api|worker";
    throw new ConfigError(
      "--role",
      `was taken by npm as its own option, so the service got none: write npm start -- --role ${named}`,
    );
  }
  let role: string | undefined = "all";
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === "--role") role = argv[++index];
    else if (argument.startsWith("--role=")) role = argument.slice("--role=".length);
    else throw new ConfigError(argument, "is not an option; the only one is --role api|worker|all");
  }
  if (isServerRole(role)) return role;
  throw new ConfigError("--role", `must be api, worker or all, got "${role ?? ""}"`);
}

/** `listen` failed (address in use, unknown host name): one line naming HOST and PORT (or ADMIN_…). */
class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown, variablePrefix: string) {
    const where = `${variablePrefix}HOST ${host} ${variablePrefix}PORT ${port}`;
    super(`Failed to start: cannot listen on ${where} (${systemErrorReason(cause)})`, { cause });
  }
}

async function listenOn(app: App, host: string, port: number, variablePrefix = "") {
  try {
    await app.listen({ port, host });
  } catch (error) {
    throw new ListenError(host, port, error, variablePrefix);
  }
}

/** With ADMIN_PORT the operator API has a listener of its own; else one listener serves everything. */
function listenerSurfaces(config: Config, all: readonly Surface[]): (readonly Surface[])[] {
  return config.adminListener ? [["public", "app"], ["admin"]] : [all];
}

/**
 * The HTTP apps, the job worker, the geocoder and the imagery: most of the code the start loads. Imported while
 * the database opens (PGlite on its own thread, or PostgreSQL answering), so that on a machine with
 * a second core the two overlap.
 */
function loadServingModules() {
  const modules = Promise.all([
    import("./app.ts"),
    import("./worker/process-worker.ts"),
    import("./geo/index.ts"),
    import("./imagery/index.ts"),
  ]);
  // A start that fails first on the database reports that failure, not this one.
  modules.catch(() => {});
  return modules;
}

async function main() {
  // Every file this process writes (database, outbox, operator token) is its user's alone.
  process.umask(0o077);
  const role = parseRole(process.argv.slice(2), process.env);
  const baseConfig = loadConfig();
  // The embedded database (and DATA_DIR's operator token) belong to one process; PostgreSQL is
  // shared by any number.
  const logger = createLogger(baseConfig.logLevel, createStdoutDestination());
  if (!preparePrivateDataDir(baseConfig.dataDir)) {
    logger.warn(
      { dataDir: baseConfig.dataDir },
      "DATA_DIR belongs to another user and stays readable to its group",
    );
  }
  if (!baseConfig.databaseUrl) refuseIfCopied(baseConfig.dataDir);
  const releaseDataDir = baseConfig.databaseUrl ? null : lockDataDir(baseConfig.dataDir);
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const adminToken = resolveAdminToken(baseConfig, print);
  // Every connection to PostgreSQL names the role in pg_stat_activity (unless DATABASE_URL names it).
  const databaseUrl =
    baseConfig.databaseUrl && withApplicationName(baseConfig.databaseUrl, serverApplicationName(role));
  const config = { ...baseConfig, adminToken: adminToken.token, databaseUrl };

  if (!baseConfig.databaseUrl && !baseConfig.pgliteThread) compileWasmWithOptimizingTier();
  const servingModules = loadServingModules();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteThread: config.pgliteThread,
    embeddedSync: config.embeddedSync,
    onPoolError: (error) => logger.warn({ err: outageErr(error) }, "database connection lost"),
    queryTimeoutMs: SERVING_QUERY_TIMEOUT_MS,
  });
  const applied = await waitForDatabase(() => migrateWithoutQueryTimeout(database, config.databaseUrl), {
    budgetMs: config.databaseStartupWaitMs,
    logger,
  });
  if (applied.length > 0) logger.info({ applied }, "migrations applied");
  if (database.kind === "pglite") {
    const released = await releaseJobsOfEndedProcess(database.db, systemClock.now());
    if (released > 0) logger.warn({ jobs: released }, "took over the jobs an ended process held (a crash)");
  }
  const vacuum = database.kind === "pglite" ? startEmbeddedVacuum({ database, logger }) : null;

  // The embedded database takes one process: a role alone there has no other half.
  if (database.kind === "pglite" && role !== "all") {
    logger.warn(
      { role },
      role === "api"
        ? "--role api on the embedded database: no worker can share it, so queued cards are never drawn or printed and webhooks never delivered until a default start (no --role) or DATABASE_URL; see docs/operations.md"
        : "--role worker on the embedded database: no API process can share it, so nothing new arrives; use the default start (no --role), or DATABASE_URL for separate processes; see docs/operations.md",
    );
  }
  if (database.kind === "pglite" && !config.embeddedSync) {
    logger.warn(
      "EMBEDDED_SYNC=off: acknowledged writes are not flushed to disk and can be lost on an OS crash or a power loss; see docs/operations.md#durability",
    );
  }
  // With REDIS_URL, Redis is asked once here: an error line when it does not answer (limits off).
  const limiter = await createConfiguredRateLimiter(config, systemClock, logger);
  if (config.webhookAllowPrivateTargets.length > 0) {
    logger.warn(
      { targets: config.webhookAllowPrivateTargets },
      "WEBHOOK_ALLOW_PRIVATE_TARGETS is set: webhook deliveries may reach these private hosts",
    );
  }
  if (config.trustProxy === true) {
    logger.warn(
      "TRUST_PROXY=true takes each client's address from X-Forwarded-For as the client wrote it: any client can pass the per-IP limit by changing it. Set TRUST_PROXY to your proxies' addresses/CIDRs (or their hop count); see docs/operations.md",
    );
  }

  const [
    { ALL_SURFACES, buildListenerApps },
    { startProcessWorker },
    { createGeocoder },
    { createHomeImagery },
  ] = await servingModules;
  const geocoder = createGeocoder(config, { db: database.db, logger });
  // One registry for the process: the worker's counters are served by the app's /metrics.
  const metrics = createMetrics();
  const renderer = measuredRenderer(createRenderPool({ threads: config.renderConcurrency }), metrics);
  const imagery = createHomeImagery(config);
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock: systemClock,
    counter: metrics.emails,
  });
  let readiness: Readiness = "starting";
  const backups = createBackups({
    database,
    dataDir: config.dataDir,
    clock: systemClock,
    logger,
    intervalHours: config.backupIntervalHours,
    keep: config.backupKeep,
  });
  const appDeps = {
    metrics,
    config,
    backups,
    database,
    clock: systemClock,
    logger,
    limiter,
    geocoder,
    renderer,
    imagery,
    mailer,
    readiness: () => readiness,
  };
  const apps = await buildListenerApps(appDeps, listenerSurfaces(config, ALL_SURFACES));
  const [app, operatorApp] = apps as [App, App | undefined];
  if (role !== "worker") {
    await listenOn(app, config.host, config.port);
    if (operatorApp && config.adminListener) {
      await listenOn(operatorApp, config.adminListener.host, config.adminListener.port, "ADMIN_");
    }
  } else {
    await Promise.all(apps.map((each) => each.ready()));
  }
  // After listening: a first start that cannot bind must not print (and use up) the token or the demo key.
  adminToken.keepNew?.();
  const seeded = await seedDemoOnFirstRun(database.db, config, logger, mailer, print);
  if (role !== "worker" && (seeded || adminToken.keepNew)) printAddresses(config, print);
  const worker =
    role !== "api"
      ? startProcessWorker({
          config,
          database,
          clock: systemClock,
          logger,
          geocoder,
          renderer,
          imagery,
          mailer,
          metrics,
        })
      : null;
  // Jobs enqueued by any process (a lead's deliveries, say) start at once instead of at the next poll.
  const stopListening = worker ? await database.listen(JOBS_READY_CHANNEL, () => worker.wake()) : null;
  // A worker serves no HTTP: naming a URL would send an operator's probe to a closed port.
  logger.info(
    { role, database: database.kind, ...(role === "worker" ? {} : { url: config.publicBaseUrl }) },
    "porchlight started",
  );
  backups.startSchedule();
  const stopLoopReport =
    config.eventLoopReportMs > 0
      ? startEventLoopDelayReport({ logger, intervalMs: config.eventLoopReportMs })
      : null;

  stopOnSignals({ logger, shutdownTimeoutMs: config.shutdownTimeoutMs }, [
    () => drain(),
    () => Promise.all(apps.map((each) => each.close())),
    async () => stopListening?.(),
    async () => worker?.stop(),
    () => renderer.close(),
    () => mailer.close(),
    async () => stopLoopReport?.(),
    async () => vacuum?.stop(),
    () => backups.stop(),
    () => limiter.close(),
    () => database.close(),
    async () => releaseDataDir?.(),
  ]);
  readiness = "ready";

  /** /readyz says 503 while requests are still served, so a load balancer stops sending first. */
  async function drain() {
    readiness = "draining";
    if (role === "worker" || config.shutdownDrainMs === 0) return;
    logger.info(
      { shutdownDrainMs: config.shutdownDrainMs },
      "draining: /readyz answers 503, requests still served",
    );
    await sleep(config.shutdownDrainMs);
  }
}

main().catch((error: unknown) => {
  const oneLine = [
    ConfigError,
    DataDirInUseError,
    DataDirUnusableError,
    InterruptedRestoreError,
    ListenError,
  ];
  if (oneLine.some((kind) => error instanceof kind)) {
    process.stderr.write(`${(error as Error).message}\n`);
  } else if (isDatabaseMisconfigured(error)) {
    // Waiting cannot help: the database named in DATABASE_URL is unknown or refuses its user.
    process.stderr.write(`Failed to start: the database refuses DATABASE_URL (${databaseReason(error)})\n`);
  } else if (isConnectionError(error)) {
    // One line an operator can act on; the URL is not echoed (it may carry a password).
    process.stderr.write(`Failed to start: the database cannot be reached (${databaseReason(error)})\n`);
  } else if (refusedStatementCode(error)) {
    // Migrating a database that is not ours, say: PostgreSQL's words, not the wrapper's "Failed query".
    const code = refusedStatementCode(error);
    process.stderr.write(
      `Failed to start: the database refused a statement (${databaseReason(error)}; SQLSTATE ${code})${refusedStatementAdvice(code)}\n`,
    );
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
