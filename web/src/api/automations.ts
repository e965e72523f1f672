import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";
import { eventKeys } from "./events.ts";
import { mailKeys } from "./mail.ts";
import { mailSafetyKeys } from "./mail-safety.ts";
import { attentionKeys } from "./overview.ts";

export type Automation = ResponseOf<"/app/api/v1/automations/{id}", "get">;
/** What creating an automation sends: its draft, and the approval setting it starts with. */
export type NewAutomation = BodyOf<"/app/api/v1/automations", "post">;
/** An automation's own fields, as a create or a change sends them (approval is a Safety setting after). */
export type AutomationDraft = Omit<NewAutomation, "approval_required">;
export type AutomationFilter = Automation["filters"][number];
export type CardTemplate = Automation["template"];

export const automationKeys = {
  all: ["automations"] as const,
  list: () => [...automationKeys.all, "list"] as const,
  detail: (id: string) => [...automationKeys.all, "detail", id] as const,
  proof: (input: unknown) => [...automationKeys.all, "proof", input] as const,
};

export const automationListQuery = () =>
  queryOptions({
    queryKey: automationKeys.list(),
    queryFn: () => unwrap(client.GET("/app/api/v1/automations")),
  });

export const automationQuery = (id: string) =>
  queryOptions({
    queryKey: automationKeys.detail(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/automations/{id}", { params: { path: { id } } })),
  });

export type ProofInput = BodyOf<"/app/api/v1/proofs", "post">;
export type CardFitInput = BodyOf<"/app/api/v1/card-fit", "post">;
export type DryRunInput = BodyOf<"/app/api/v1/automations/dry-run", "post">;
export type DryRunAnswer = ResponseOf<"/app/api/v1/automations/dry-run", "post">;

/** The server renders the proof with the card renderer itself; the same input is answered from cache. */
export const proofQuery = (input: ProofInput) =>
  queryOptions({
    queryKey: automationKeys.proof(input),
    queryFn: () => unwrap(client.POST("/app/api/v1/proofs", { body: input })),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });

/** The server's fit rule (the one a save applies) for the builder to show as the contractor types. */
export const cardFitQuery = (input: CardFitInput) =>
  queryOptions({
    queryKey: [...automationKeys.all, "card-fit", input] as const,
    queryFn: () => unwrap(client.POST("/app/api/v1/card-fit", { body: input })),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });

/** Binding changes which event types count as unbound, so the event domain is refreshed too. */
function useInvalidateAutomations() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: automationKeys.all }),
      queryClient.invalidateQueries({ queryKey: eventKeys.all }),
      queryClient.invalidateQueries({ queryKey: ["attention"] }),
    ]);
}

export function useCreateAutomation() {
  const invalidate = useInvalidateAutomations();
  return useMutation({
    mutationFn: (body: NewAutomation) => unwrap(client.POST("/app/api/v1/automations", { body })),
    onSuccess: invalidate,
    // The builder keeps its values and leads to sign-in when the session has ended.
    meta: { signsInOnSessionEnd: true },
  });
}

export function useUpdateAutomation(id: string) {
  const invalidate = useInvalidateAutomations();
  return useMutation({
    mutationFn: (body: Partial<AutomationDraft>) =>
      unwrap(client.PATCH("/app/api/v1/automations/{id}", { params: { path: { id } }, body })),
    onSuccess: invalidate,
    meta: { signsInOnSessionEnd: true },
  });
}

export function useDryRun() {
  return useMutation({
    meta: { quiet: true },
    mutationFn: (body: DryRunInput) => unwrap(client.POST("/app/api/v1/automations/dry-run", { body })),
  });
}

export type TestCardInput = BodyOf<"/app/api/v1/automations/{id}/test-card", "post">;
export type TestCardSent = ResponseOf<"/app/api/v1/automations/{id}/test-card", "post">;

/**
 * Mails one real card of a saved automation to a typed address (owners). What it changes is read
 * again: Mail, the samples and event types, the checklist and attention, approvals and caps, the
 * automations' counts. Its dialog says every failure itself (quiet: no toast besides).
 */
export function useSendTestCard(id: string) {
  const queryClient = useQueryClient();
  const changed = [mailKeys.all, eventKeys.all, mailSafetyKeys.all, attentionKeys.all, automationKeys.all];
  return useMutation({
    meta: { quiet: true },
    mutationFn: (body: TestCardInput) =>
      unwrap(client.POST("/app/api/v1/automations/{id}/test-card", { params: { path: { id } }, body })),
    onSuccess: () =>
      Promise.all([
        ...changed.map((queryKey) => queryClient.invalidateQueries({ queryKey })),
        queryClient.invalidateQueries({ queryKey: ["overview"] }),
        queryClient.invalidateQueries({ queryKey: ["first-steps"] }),
      ]),
  });
}
