import { type Static, Type } from "@fastify/type-provider-typebox";
import type { StoredConnection } from "./connections.ts";
import { HUBSPOT_EVENT_TYPES } from "./records.ts";

const IsoDate = Type.String({ format: "date-time" });

export const HubSpotConnectionView = Type.Object(
  {
    portal_id: Type.String({ description: "The HubSpot portal (hub id) connected." }),
    connected_at: IsoDate,
    last_event_at: Type.Union([IsoDate, Type.Null()], {
      description: "When HubSpot last sent an event for this portal; null before the first.",
    }),
    won_stages: Type.Array(Type.String(), {
      description: "Deal stages (internal ids) whose deals are recorded as won.",
    }),
    needs_reconnect: Type.Boolean({
      description: "HubSpot no longer accepts the tokens (the app was uninstalled): connect again.",
    }),
  },
  { additionalProperties: false },
);

export const HubSpotStatus = Type.Object(
  {
    configured: Type.Boolean({
      description:
        "False when the operator has not set up a HubSpot app (HUBSPOT_CLIENT_ID): nothing to connect.",
    }),
    connection: Type.Union([HubSpotConnectionView, Type.Null()]),
    event_types: Type.Array(Type.String(), { description: "The event types HubSpot's records arrive as." }),
  },
  { additionalProperties: false },
);
export type HubSpotStatus = Static<typeof HubSpotStatus>;

/** A deal stage's internal id as HubSpot shows it in the pipeline settings (`closedwon`, `12345678`). */
export const DealStageId = Type.String({ pattern: "^[A-Za-z0-9_.:-]{1,100}$" });

export const WonStagesBody = Type.Object(
  // A stage named twice is kept once (setWonStages): a person typing it again is no error to explain.
  { won_stages: Type.Array(DealStageId, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false },
);

export function hubspotStatus(configured: boolean, connection: StoredConnection | undefined): HubSpotStatus {
  return {
    configured,
    connection: connection
      ? {
          portal_id: connection.portalId,
          connected_at: connection.connectedAt.toISOString(),
          last_event_at: connection.lastEventAt?.toISOString() ?? null,
          won_stages: connection.wonStages,
          needs_reconnect: connection.needsReconnectSince !== null,
        }
      : null,
    event_types: [...HUBSPOT_EVENT_TYPES],
  };
}
