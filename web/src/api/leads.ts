import { type QueryClient, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";

export type LeadSummary = ResponseOf<"/app/api/v1/leads", "get">["leads"][number];
export type LeadSource = LeadSummary["source"];
export type Lead = ResponseOf<"/app/api/v1/leads/{id}", "get">;
export type LeadDelivery = LeadSummary["deliveries"][number];
export type WonJob = NonNullable<Lead["won"]>;
export type MarkWon = BodyOf<"/app/api/v1/leads/{id}/won", "put">;

export const SOURCE_LABELS: Record<LeadSource, string> = {
  landing_page: "Landing page",
  crm_sync: "CRM sync",
};

/**
 * How a lead or a won deal is tied to a card, in words (the API's `attribution_type`): `direct`
 * when the home answered the card (its landing page), `indirect` when it was matched to a card
 * mailed to the same home by its address.
 */
export const ATTRIBUTION_WORDS: Record<string, string> = {
  direct: "Answered the card",
  indirect: "Card mailed to this home",
};
export const attributionWords = (type: string | null | undefined) =>
  type ? (ATTRIBUTION_WORDS[type] ?? type) : "—";

/**
 * How sure the match of a won deal to a card is (the API's match_confidence), in a contractor's
 * words rather than "High match": exact, the CRM named the mailing; high, the same address (or the
 * same rooftop on the map); medium, very likely the same home (written with less of its town, or a
 * point on the map within a few yards).
 */
const MATCH_WORDS: Record<string, string> = {
  exact: "the CRM named this mailing",
  high: "same address",
  medium: "very likely the same home",
};

export const matchWords = (confidence: string) => MATCH_WORDS[confidence] ?? confidence;

/**
 * How Revenue's won deal reached its card: a lead marked won in the app is matched by its own card,
 * not by anything the CRM named ("the CRM named this mailing" read as a CRM the contractor never used).
 */
export const wonDealMatchWords = (deal: { reported_by: string; match_confidence: string }) =>
  deal.reported_by === "app"
    ? "marked won in the app from its lead"
    : deal.reported_by === "app_then_crm"
      ? "marked won in the app, then reported by your CRM (counted once)"
      : matchWords(deal.match_confidence);

export const leadKeys = {
  all: ["leads"] as const,
  list: (source: LeadSource | undefined, cursor?: string) =>
    [...leadKeys.all, "list", source ?? "", cursor ?? ""] as const,
  detail: (id: string) => [...leadKeys.all, "detail", id] as const,
  unopened: () => [...leadKeys.all, "unopened"] as const,
};

/** New landing-page leads no member has opened yet (Overview), newest first; opening one in Leads clears it. */
export const unopenedLeadsQuery = () =>
  queryOptions({
    queryKey: leadKeys.unopened(),
    queryFn: () => unwrap(client.GET("/app/api/v1/leads", { params: { query: { unopened: "true" } } })),
  });

export const leadsQuery = (source?: LeadSource, cursor?: string) =>
  queryOptions({
    queryKey: leadKeys.list(source, cursor),
    queryFn: () =>
      unwrap(
        client.GET("/app/api/v1/leads", {
          params: { query: { ...(source ? { source } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
  });

type LeadPage = ResponseOf<"/app/api/v1/leads", "get">;

/**
 * Reading a lead's page opened it (the server marks it): the lists already read drop its "New" mark
 * at once, and Overview's unopened leads are read again.
 */
export function forgetNewMark(queryClient: QueryClient, leadId: string): void {
  queryClient.setQueriesData<LeadPage>({ queryKey: [...leadKeys.all, "list"] }, (page) =>
    page?.leads.some((lead) => lead.id === leadId && lead.unopened)
      ? {
          ...page,
          leads: page.leads.map((lead) => (lead.id === leadId ? { ...lead, unopened: false } : lead)),
        }
      : page,
  );
  void queryClient.invalidateQueries({ queryKey: leadKeys.unopened() });
}

export const leadQuery = (id: string) =>
  queryOptions({
    queryKey: leadKeys.detail(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/leads/{id}", { params: { path: { id } } })),
  });

/**
 * Marks the lead's job won (again: changes its amount). The answer is the lead as it is now; the rest
 * of the app is read again, since a won job changes Revenue, Overview, Customers (the home is one
 * now), the card's page and Approvals (the home's waiting cards stop).
 */
/** Taken back from a dialog that shows a failure itself: no toast repeats it. */
export function useTakeBackLeadWon(leadId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(client.DELETE("/app/api/v1/leads/{id}/won", { params: { path: { id: leadId } } })),
    onSuccess: (lead) => {
      queryClient.setQueryData(leadKeys.detail(leadId), lead);
      void queryClient.invalidateQueries({
        predicate: (query) => query.queryKey.join("|") !== leadKeys.detail(leadId).join("|"),
      });
    },
  });
}

export function useMarkLeadWon(leadId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { refusalsOnFields: true },
    mutationFn: (body: MarkWon) =>
      unwrap(client.PUT("/app/api/v1/leads/{id}/won", { params: { path: { id: leadId } }, body })),
    onSuccess: (lead) => {
      queryClient.setQueryData(leadKeys.detail(leadId), lead);
      void queryClient.invalidateQueries({
        predicate: (query) => query.queryKey.join("|") !== leadKeys.detail(leadId).join("|"),
      });
    },
  });
}
