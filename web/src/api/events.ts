import { queryOptions } from "@tanstack/react-query";
import { client, type ResponseOf, unwrap } from "./client.ts";

export type EventType = ResponseOf<"/app/api/v1/event-types", "get">[number];
export type EventSample = ResponseOf<"/app/api/v1/event-samples", "get">[number];

/** The CRM record inside a sample: `record` is the event as received, whose own `record` holds it. */
function crmRecordOf(sample: EventSample): { id?: unknown; properties?: unknown } {
  const inner = (sample.record as { record?: unknown }).record;
  return inner && typeof inner === "object" ? inner : sample.record;
}

/** A sample record's properties (the developer API takes only strings there). */
export function propertiesOf(sample: EventSample): Record<string, string> {
  const properties = crmRecordOf(sample).properties;
  return properties && typeof properties === "object" ? (properties as Record<string, string>) : {};
}

export const recordIdOf = (sample: EventSample): string | undefined => {
  const id = crmRecordOf(sample).id;
  return typeof id === "string" ? id : undefined;
};

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
    select: (types) => newestFirst(types, (type) => type.last_seen_at),
  });

export const newestSamplesFirst = <T extends { received_at: string }>(samples: T[]) =>
  newestFirst(samples, (sample) => sample.received_at);

/**
 * A `refetchInterval` for lists that wait for a first event: while the list is empty it looks again
 * every few seconds, so whoever just sent one from a terminal or their CRM sees it land without reloading.
 */
export const lookAgainWhileEmpty = (query: { state: { data?: readonly unknown[] } }) =>
  query.state.data?.length === 0 ? 3000 : false;

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
    select: newestSamplesFirst,
  });
