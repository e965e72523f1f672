import type { Logger } from "pino";
import { createKillSwitch } from "../automations/kill-switch.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import type { Metrics } from "../http/metrics.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import { startJobPruning } from "../jobs/pruning.ts";
import { startWorker, type Worker } from "../jobs/worker.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { Renderer } from "../render/renderer.ts";
import { createDeliveryClient } from "../webhooks/delivery-client.ts";
import { createTargetGuard } from "../webhooks/target-guard.ts";
import { buildJobCatalog } from "./catalog.ts";

/**
 * The worker of a `--role worker` (or default) process: every job kind, real DNS, the system CA
 * store with TLS verification on, and the pruning of finished jobs past their retention. Stopping
 * it lets jobs in hand finish, then closes the sockets.
 */
export function startProcessWorker(given: {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  geocoder: Geocoder;
  renderer: Renderer;
  imagery: HomeImagery;
  mailer: Mailer;
  metrics?: Metrics;
}): Worker {
  const deps = { ...given, db: given.database.db };
  const guard = createTargetGuard({ allowPrivateTargets: deps.config.webhookAllowPrivateTargets });
  const deliveryClient = createDeliveryClient({ guard, logger: deps.logger });
  const killSwitch = createKillSwitch(deps);
  const worker = startWorker(
    { ...deps, automationsPaused: () => killSwitch.isPaused() },
    buildJobCatalog({ ...deps, deliveryClient }),
  );
  const pruning = startJobPruning(deps);
  return {
    wake: () => worker.wake(),
    stop: async () => {
      await pruning.stop();
      await worker.stop();
      await deliveryClient.close();
    },
  };
}
