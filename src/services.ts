import type { Logger } from "pino";
import type { AttributionDeps } from "./attribution/deps.ts";
import type { BoundAutomationCache } from "./automations/automation-cache.ts";
import type { KillSwitch } from "./automations/kill-switch.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { Backups } from "./db/backups.ts";
import type { Database, Queryable } from "./db/database.ts";
import type { Geocoder } from "./geo/geocoder.ts";
import type { Metrics } from "./http/metrics.ts";
import type { HomeImagery } from "./imagery/home-imagery.ts";
import type { RateLimiter } from "./limits/rate-limiter.ts";
import type { WorkBudget } from "./limits/work-budget.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { ReferenceAddressUploads } from "./neighbours/address-uploads.ts";
import type { KeyStore } from "./orgs/key-store.ts";
import type { Renderer } from "./render/renderer.ts";
import type { TriggerStore } from "./trigger/trigger-store.ts";
import type { TargetGuard } from "./webhooks/target-guard.ts";

/**
 * What route modules receive: the app's dependencies plus the few stateful services shared by
 * several endpoint groups. Each domain builds its own services from these where it lives.
 */
/** Where the process is in its life, as far as taking new traffic goes (/readyz answers 200 only when ready). */
export type Readiness = "starting" | "ready" | "draining";

export interface Services {
  config: Config;
  database: Database;
  db: Queryable;
  clock: Clock;
  logger: Logger;
  limiter: RateLimiter;
  /** Each organization's time reading addresses in batches (customers), bounded per minute. */
  addressWork: WorkBudget;
  keyStore: KeyStore;
  killSwitch: KillSwitch;
  boundAutomations: BoundAutomationCache;
  /** Group-committed writes of events and legacy triggers (samples, campaigns, pieces, jobs). */
  triggerStore: TriggerStore;
  geocoder: Geocoder;
  /** Draws cards off the event loop (the render pool); the operator's proofs use it. */
  renderer: Renderer;
  /** The one mailer of the process (invitations, password resets); the composition root closes it. */
  mailer: Mailer;
  /** The home imagery HOME_IMAGERY names, shared by the pipeline and the proofs of printed cards. */
  imagery: HomeImagery;
  /** SSRF guard of webhook targets (subscribe time; deliveries check again at connect time). */
  webhookTargetGuard: TargetGuard;
  /** The app's Prometheus registry and its instruments (`GET /metrics`). */
  metrics: Metrics;
  /** Backups of the embedded database (the operator's /backups). */
  backups: Backups;
  /** OpenAddresses files uploaded through the operator API, loaded while the server serves. */
  referenceUploads: ReferenceAddressUploads;
  /** See AppDeps.readiness: /readyz reads it. */
  readiness?: () => Readiness;
}

/** What attribution needs, from the route services (developer API and app API alike). */
export function attributionDeps(services: Services): AttributionDeps {
  return {
    db: services.db,
    clock: services.clock,
    logger: services.logger,
    geocoder: services.geocoder,
    geoRadiusMeters: services.config.attributionGeoRadiusMeters,
  };
}
