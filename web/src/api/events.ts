import { queryOptions } from "@tanstack/react-query";
import { client, type Schemas, unwrap } from "./client.ts";

export type EventType = Schemas["EventType"];
export type EventSample = Schemas["EventSample"];

export const eventKeys = {
  all: ["events"] as const,
  types: () => [...eventKeys.all, "types"] as const,
  samples: (eventType: string) => [...eventKeys.all, "samples", eventType] as const,
};

const newestFirst = <T>(items: T[], at: (item: T) => string) =>
  [...items].sort((a, b) => at(b).localeCompare(at(a)));

export const eventTypesQuery = () =>
  queryOptions({
    queryKey: eventKeys.types(),
    queryFn: () => unwrap(client.GET("/app/api/v1/event-types")),
    select: (answer) => newestFirst(answer.event_types, (type) => type.last_seen_at),
  });

/** Samples of one event type (or of all types when blank), newest first. */
export const eventSamplesQuery = (eventType: string) =>
  queryOptions({
    queryKey: eventKeys.samples(eventType),
    queryFn: () =>
      unwrap(
        client.GET("/app/api/v1/event-samples", {
          params: { query: eventType ? { event_type: eventType } : {} },
        }),
      ),
    select: (answer) => newestFirst(answer.samples, (sample) => sample.received_at),
  });
