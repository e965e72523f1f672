import type { Logger } from "pino";
import { attributeContactWith } from "../attribution/tracking-lead.ts";
import { createBoundAutomationCache } from "../automations/automation-cache.ts";
import { createKillSwitch } from "../automations/kill-switch.ts";
import type { Clock } from "../clock.ts";
import type { Config, HubSpotAppConfig } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { hubspotEventJob } from "../jobs/kinds.ts";
import { createEventService } from "../trigger/event-service.ts";
import { createTriggerStore } from "../trigger/trigger-store.ts";
import { processHubSpotEvent } from "./event-job.ts";
import { createHubSpotApi } from "./hubspot-api.ts";
import { lazyTokenCipher } from "./token-cipher.ts";

export interface HubSpotJobDeps {
  config: Config & { hubspot: HubSpotAppConfig };
  database: Database;
  clock: Clock;
  logger: Logger;
  geocoder: Geocoder;
}

/**
 * The worker's handler of HubSpot events. Records go through the developer API's event service,
 * with a trigger store of the worker's own; each job writes its event samples before it ends, so
 * the binding picker shows them as soon as the job is done.
 */
export function hubspotEventHandler(deps: HubSpotJobDeps): RegisteredJob {
  const { database, clock, logger, config } = deps;
  const db = database.db;
  const triggerStore = createTriggerStore({ database, logger });
  const attribution = {
    db,
    clock,
    logger,
    geocoder: deps.geocoder,
    geoRadiusMeters: config.attributionGeoRadiusMeters,
  };
  const events = createEventService({
    db,
    clock,
    logger,
    killSwitch: createKillSwitch({ db, clock }),
    boundAutomations: createBoundAutomationCache({ db, clock }),
    triggerStore,
    attributeContact: attributeContactWith(attribution),
  });
  const api = createHubSpotApi(config.hubspot);
  const cipher = lazyTokenCipher(db, config);
  return handleJob(hubspotEventJob, async (payload) => {
    const eventDeps = { db, clock, logger, api, cipher: await cipher(), events, attribution };
    try {
      await processHubSpotEvent(eventDeps, payload.org_id, payload.event_id);
    } finally {
      await triggerStore.flushSamples();
    }
  });
}
