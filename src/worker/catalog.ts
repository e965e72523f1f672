import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Database, Queryable } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import type { Metrics } from "../http/metrics.ts";
import { hubspotEventHandler } from "../hubspot/job-handler.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import { createJobCatalog, type JobCatalog, type RegisteredJob } from "../jobs/job-kind.ts";
import { leadAlertHandler } from "../leads/lead-alerts.ts";
import type { Mailer } from "../mail/mailer.ts";
import { capNoticeHandler } from "../mail-safety/cap-notice.ts";
import { mailSafetyGates } from "../mail-safety/piece-checks.ts";
import { neighbourFanoutHandler } from "../neighbours/neighbour-fanout.ts";
import { pipelineJobHandlers } from "../pieces/job-handlers.ts";
import type { Renderer } from "../render/renderer.ts";
import { deliverLeadHandler } from "../webhooks/deliver-lead-job.ts";
import type { DeliveryClient } from "../webhooks/delivery-client.ts";

interface LeadDeliveryDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  deliveryClient: DeliveryClient;
  /** The process's metrics (webhook deliveries); absent in tests that do not read them. */
  metrics?: Metrics;
}

/**
 * Lead deliveries always run; with config (and so its mailer) the email kinds run too (lead
 * alerts, cap notices), with the geocoder, renderer and imagery the campaign pipeline's kinds, and
 * with the database and a HubSpot app HubSpot's events (a worker process always passes them all).
 */
export type JobCatalogDeps =
  | (LeadDeliveryDeps & { config?: undefined })
  | (LeadDeliveryDeps & {
      config: Config;
      mailer: Mailer;
      geocoder?: Geocoder;
      renderer?: Renderer;
      imagery?: HomeImagery;
      /** The database itself (HubSpot's events write through a trigger store of their own). */
      database?: Database;
    });

/** Every job kind this service runs, with its handler. A worker process runs all of them. */
export function buildJobCatalog(deps: JobCatalogDeps): JobCatalog {
  return createJobCatalog([
    deliverLeadHandler({ ...deps, client: deps.deliveryClient }),
    ...(deps.config
      ? [
          leadAlertHandler({
            ...deps,
            mailer: deps.mailer,
            publicBaseUrl: deps.config.publicBaseUrl,
          }),
          capNoticeHandler({
            ...deps,
            mailer: deps.mailer,
            publicBaseUrl: deps.config.publicBaseUrl,
          }),
        ]
      : []),
    ...(deps.config && deps.geocoder && deps.renderer && deps.imagery
      ? pipelineJobHandlers({
          ...deps,
          config: deps.config,
          geocoder: deps.geocoder,
          renderer: deps.renderer,
          imagery: deps.imagery,
          safetyGates: mailSafetyGates,
        })
      : []),
    ...(deps.config && deps.geocoder && deps.renderer ? [neighbourFanoutHandler(deps)] : []),
    ...hubspotHandlers(deps),
  ]);
}

/** HubSpot's events run where the operator configured a HubSpot app (HUBSPOT_CLIENT_ID). */
function hubspotHandlers(deps: JobCatalogDeps): RegisteredJob[] {
  if (!deps.config || !deps.geocoder || !deps.database) return [];
  const { config, geocoder, database } = deps;
  const hubspot = config.hubspot;
  return hubspot
    ? [hubspotEventHandler({ ...deps, geocoder, database, config: { ...config, hubspot } })]
    : [];
}
