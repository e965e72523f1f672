import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import type { Metrics } from "../http/metrics.ts";
import { createJobCatalog, type JobCatalog } from "../jobs/job-kind.ts";
import { leadAlertHandler } from "../leads/lead-alerts.ts";
import { createMailer, type Mailer } from "../mail/mailer.ts";
import { capNoticeHandler } from "../mail-safety/cap-notice.ts";
import { mailSafetyGates } from "../mail-safety/piece-checks.ts";
import { neighbourFanoutHandler } from "../neighbours/neighbour-fanout.ts";
import { pipelineJobHandlers } from "../pieces/job-handlers.ts";
import type { Renderer } from "../render/renderer.ts";
import { deliverLeadHandler } from "../webhooks/deliver-lead-job.ts";
import type { DeliveryClient } from "../webhooks/delivery-client.ts";

export interface JobCatalogDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  deliveryClient: DeliveryClient;
  /** With all three, the campaign pipeline's kinds run too (a worker process always passes them). */
  config?: Config;
  geocoder?: Geocoder;
  renderer?: Renderer;
  /** Lead alert emails; default (with config): SMTP_URL's server, else the outbox in DATA_DIR. */
  mailer?: Mailer;
  /** The process's metrics (webhook deliveries, emails); absent in tests that do not read them. */
  metrics?: Metrics;
}

/** Every job kind this service runs, with its handler. A worker process runs all of them. */
export function buildJobCatalog(deps: JobCatalogDeps): JobCatalog {
  return createJobCatalog([
    deliverLeadHandler({ ...deps, client: deps.deliveryClient }),
    ...(deps.config
      ? [
          leadAlertHandler({
            ...deps,
            mailer: deps.mailer ?? mailerOf(deps, deps.config),
            publicBaseUrl: deps.config.publicBaseUrl,
          }),
          capNoticeHandler({
            ...deps,
            mailer: deps.mailer ?? mailerOf(deps, deps.config),
            publicBaseUrl: deps.config.publicBaseUrl,
          }),
        ]
      : []),
    ...(deps.config && deps.geocoder && deps.renderer
      ? pipelineJobHandlers({
          ...deps,
          config: deps.config,
          geocoder: deps.geocoder,
          renderer: deps.renderer,
          safetyGates: mailSafetyGates,
        })
      : []),
    ...(deps.config && deps.geocoder && deps.renderer ? [neighbourFanoutHandler(deps)] : []),
  ]);
}

function mailerOf(deps: JobCatalogDeps, config: Config): Mailer {
  return createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger: deps.logger,
    clock: deps.clock,
    ...(deps.metrics ? { counter: deps.metrics.emails } : {}),
  });
}
