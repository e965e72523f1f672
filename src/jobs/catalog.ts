import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import { createMailer, type Mailer } from "../mail/mailer.ts";
import { pipelineJobHandlers } from "../pipeline/index.ts";
import type { Renderer } from "../render/renderer.ts";
import { leadAlertHandler } from "../services/lead-alerts.ts";
import { capNoticeHandler } from "../services/mail-safety/cap-notice.ts";
import { deliverLeadHandler } from "../services/webhooks/deliver-lead-job.ts";
import type { DeliveryClient } from "../services/webhooks/delivery-client.ts";
import { createJobCatalog, type JobCatalog } from "./job-kind.ts";

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
        })
      : []),
  ]);
}

function mailerOf(deps: JobCatalogDeps, config: Config): Mailer {
  return createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger: deps.logger,
    clock: deps.clock,
  });
}
