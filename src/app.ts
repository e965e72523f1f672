import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { Logger } from "pino";
import { registerContractorApp } from "./app-api/routes/index.ts";
import { createBoundAutomationCache } from "./automations/automation-cache.ts";
import { createKillSwitch } from "./automations/kill-switch.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { registerHubSpotWebhookRoute } from "./crm-webhooks/hubspot.ts";
import { type Backups, createBackups } from "./db/backups.ts";
import type { Database } from "./db/database.ts";
import { registerDeveloperApi } from "./developer-api/index.ts";
import type { Geocoder } from "./geo/geocoder.ts";
import { registerHealthRoutes } from "./health.ts";
import { createClientErrorHandler } from "./http/client-errors.ts";
import { registerDocsPage } from "./http/docs-page.ts";
import { frameworkErrorHandler, registerErrorHandling } from "./http/error-handler.ts";
import { registerExpectContinue } from "./http/expect-continue.ts";
import { registerGuards } from "./http/guards.ts";
import { registerJsonBodyParser } from "./http/json-body.ts";
import { createLazySchemas } from "./http/lazy-schemas.ts";
import { createMetrics, type Metrics, registerMetricsRoute, registerRequestMetrics } from "./http/metrics.ts";
import { registerOpenApi } from "./http/openapi.ts";
import { requestIdFor } from "./http/request-id.ts";
import { registerRequestLog } from "./http/request-log.ts";
import { registerShutdownGate } from "./http/shutdown-gate.ts";
import { registerStrictTransportSecurity } from "./http/strict-transport.ts";
import { registerWebApp } from "./http/web-app.ts";
import type { HomeImagery } from "./imagery/home-imagery.ts";
import { registerLandingRoutes } from "./landing-pages/routes.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import { createWorkBudget } from "./limits/work-budget.ts";
import type { Mailer } from "./mail/mailer.ts";
import { JsonRpcRequestBody } from "./mcp/json-rpc.ts";
import { registerMcpRoute } from "./mcp/route.ts";
import { createReferenceAddressUploads } from "./neighbours/address-uploads.ts";
import { registerOperatorApi } from "./operator-api/index.ts";
import { createKeyStore } from "./orgs/key-store.ts";
import { registerLobWebhookRoute } from "./printer-webhooks/lob.ts";
import type { Renderer } from "./render/renderer.ts";
import type { Readiness, Services } from "./services.ts";
import { createTriggerStore } from "./trigger/trigger-store.ts";
import { LEAD_CREATED_WEBHOOK } from "./webhooks/lead-created-openapi.ts";
import { createTargetGuard, type HostResolver } from "./webhooks/target-guard.ts";

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  limiter: RateLimiter;
  geocoder: Geocoder;
  /** The render pool (the caller creates and closes it: a worker in the same process shares it). */
  renderer: Renderer;
  /** The process's mailer and home imagery, built once by the caller (main.ts, or a test's harness). */
  mailer: Mailer;
  imagery: HomeImagery;
  /**
   * The process's Prometheus registry, shared with a worker in the same process; unset, the app
   * gets one of its own (tests).
   */
  metrics?: Metrics;
  /** How webhook target hostnames resolve; default: the system resolver. Tests inject one. */
  resolveHost?: HostResolver;
  /** Backups of the embedded database; default: built here, without a schedule (main.ts starts one). */
  backups?: Backups;
  /**
   * "starting" while the process is still starting (listening, but seeding, starting workers and
   * installing its signal handlers), "draining" once a signal asked it to stop: /readyz answers
   * 503 in both. Unset: ready.
   */
  readiness?: () => Readiness;
}

export type App = FastifyInstance;

/**
 * What one Fastify instance serves. `public`: the developer API, its OpenAPI document and docs,
 * landing pages, MCP and Lob's webhook; `app`: the contractor's app under /app; `admin`: the
 * operator API. One listener serves all of them unless ADMIN_PORT gives the operator surface a
 * listener of its own (main.ts); health checks answer on every listener.
 */
export type Surface = "public" | "app" | "admin";
export const ALL_SURFACES: readonly Surface[] = ["public", "app", "admin"];

export interface AppOptions {
  /** Default: all of them. */
  surfaces?: readonly Surface[];
}

/** One app serving `options.surfaces` (default: all). */
export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<App> {
  const [app] = await buildListenerApps(deps, [options.surfaces ?? ALL_SURFACES]);
  return app!;
}

/**
 * One app per listener, each serving its own surfaces, all sharing one set of services: a key
 * revoked or an automation changed through the operator listener is seen at once on the public one.
 */
export async function buildListenerApps(
  deps: AppDeps,
  listeners: readonly (readonly Surface[])[],
): Promise<App[]> {
  const services = buildServices(deps);
  const apps: App[] = [];
  for (const surfaces of listeners) apps.push(await buildListenerApp(deps, services, surfaces));
  return apps;
}

/** Cross-cutting services built once per app and handed to route modules. */
function buildServices(deps: AppDeps): Services {
  const { database, clock, logger } = deps;
  const metrics = deps.metrics ?? createMetrics();
  metrics.watchDatabase({ database, clock });
  const backups =
    deps.backups ??
    createBackups({
      database,
      dataDir: deps.config.dataDir,
      clock,
      logger,
      intervalHours: deps.config.backupIntervalHours,
      keep: deps.config.backupKeep,
    });
  if (backups.available) metrics.watchBackups(backups);
  return {
    ...deps,
    metrics,
    db: database.db,
    backups,
    referenceUploads: createReferenceAddressUploads({
      database,
      clock,
      logger,
      dataDir: deps.config.dataDir,
      maxBytes: deps.config.referenceUploadMaxBytes,
    }),
    keyStore: createKeyStore({ db: database.db, clock, logger }),
    killSwitch: createKillSwitch({ db: database.db, clock }),
    boundAutomations: createBoundAutomationCache({ db: database.db, clock }),
    addressWork: createWorkBudget({
      msPerMinute: deps.config.addressWorkMsPerMinute,
      clock,
      work: "Reading addresses",
    }),
    triggerStore: createTriggerStore({ database, logger }),
    webhookTargetGuard: createTargetGuard({
      resolver: deps.resolveHost,
      allowPrivateTargets: deps.config.webhookAllowPrivateTargets,
    }),
  };
}

/**
 * Fastify leaves requestTimeout off (0), so a client sending its body a byte at a time could hold
 * a socket forever. Headers and body must arrive within `timeoutMs`; Node checks its connections
 * every `connectionsCheckingInterval` ms, so that interval bounds how late the 408 comes.
 */
function requestTimeouts(timeoutMs: number) {
  return {
    requestTimeout: timeoutMs,
    clientErrorHandler: createClientErrorHandler(timeoutMs),
    http: {
      requestTimeout: timeoutMs,
      headersTimeout: Math.min(timeoutMs, 60_000),
      connectionsCheckingInterval: Math.min(timeoutMs, 5_000),
    },
  };
}

async function buildListenerApp(
  deps: AppDeps,
  services: Services,
  surfaces: readonly Surface[],
): Promise<App> {
  const lazySchemas = createLazySchemas();
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Our own one-line request log replaces Fastify's two lines (see http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdFor,
    trustProxy: deps.config.trustProxy as boolean | string,
    bodyLimit: 1_048_576,
    ...requestTimeouts(deps.config.requestTimeoutMs),
    frameworkErrors: frameworkErrorHandler,
    // Requests arriving during shutdown are refused in our own shape (http/shutdown-gate.ts).
    return503OnClosing: false,
    // Our own JSON parser (http/json-body.ts) refuses __proto__ keys with a 422 naming the field;
    // these settings guard any other parser Fastify might use.
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    ajv: {
      // The spec rejects rather than coerces, and unknown fields are errors, not silently dropped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false },
      // Each route's schemas compile on its first request, not at start (http/lazy-schemas.ts).
      plugins: [lazySchemas.ajvPlugin],
    },
    schemaController: { compilersFactory: { buildSerializer: lazySchemas.buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate("compileAllSchemas", lazySchemas.compileAll);

  // Buffered writes (event samples) reach the database before it is closed.
  app.addHook("onClose", () => services.triggerStore.drain());
  registerJsonBodyParser(app);
  registerExpectContinue(app);
  registerErrorHandling(app);
  registerRequestLog(app);
  registerRequestMetrics(app, services.metrics);
  registerStrictTransportSecurity(app, deps.config.publicBaseUrl);
  registerShutdownGate(app);
  registerGuards(app, {
    limiter: deps.limiter,
    keyStore: services.keyStore,
    ipRateLimitPerMinute: deps.config.ipRateLimitPerMinute,
  });

  registerHealthRoutes(app, services);
  if (surfaces.includes("public")) await registerPublicSurface(app, services);
  // The operator console (/app/operator) is served where the operator API is: with ADMIN_PORT,
  // on that listener only, since its calls to /admin/v1 reach nothing on the public port.
  const withAdmin = surfaces.includes("admin");
  if (surfaces.includes("app")) await registerContractorApp(app, services, withAdmin ? "all" : "contractor");
  if (withAdmin) {
    await app.register(async (scope) => registerOperatorApi(scope, services), { prefix: "/admin/v1" });
    // Operators' only: on the operator listener with ADMIN_PORT, else behind the operator token.
    await registerMetricsRoute(app, services);
    if (!surfaces.includes("app")) await registerWebApp(app, { pages: "operator" });
  }
  return app;
}

/** The OpenAPI document is registered first: it describes the routes registered after it. */
async function registerPublicSurface(app: App, services: Services): Promise<void> {
  const { publicBaseUrl } = services.config;
  await registerOpenApi(app, {
    publicBaseUrl,
    webhooks: LEAD_CREATED_WEBHOOK,
    mcpRequestBody: JsonRpcRequestBody,
  });
  await registerDocsPage(app, publicBaseUrl);
  await app.register(async (scope) => registerLandingRoutes(scope, services));
  await app.register(async (scope) => registerDeveloperApi(scope, services), { prefix: "/api/v1" });
  await registerMcpRoute(app, { publicBaseUrl, keyStore: services.keyStore });
  await registerLobWebhookRoute(app, services);
  await registerHubSpotWebhookRoute(app, services);
}
