import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { count, exactMoney } from "../ui/format.ts";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";
import { mailKeys } from "./mail.ts";

export type AutomationSafety = ResponseOf<"/app/api/v1/automations/{id}/safety", "get">;
export type AutomationSafetyPatch = BodyOf<"/app/api/v1/automations/{id}/safety", "patch">;
export type MailSafety = ResponseOf<"/app/api/v1/mail-safety", "get">;
export type MailSafetyPatch = BodyOf<"/app/api/v1/mail-safety", "patch">;
export type Approvals = ResponseOf<"/app/api/v1/approvals", "get">;
export type ApprovalCard = Approvals["pieces"][number];

export const mailSafetyKeys = {
  all: ["mail-safety"] as const,
  overview: () => [...mailSafetyKeys.all, "overview"] as const,
  automation: (id: string) => [...mailSafetyKeys.all, "automation", id] as const,
  approvals: () => [...mailSafetyKeys.all, "approvals"] as const,
};

export const mailSafetyQuery = () =>
  queryOptions({
    queryKey: mailSafetyKeys.overview(),
    queryFn: () => unwrap(client.GET("/app/api/v1/mail-safety")),
  });

export const automationSafetyQuery = (id: string) =>
  queryOptions({
    queryKey: mailSafetyKeys.automation(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/automations/{id}/safety", { params: { path: { id } } })),
  });

/**
 * The queue. Every read gives its total to the menu's count of waiting cards, so opening Approvals
 * shows a count that agrees with the list even after a change the count was not told of.
 */
export const approvalsQuery = () =>
  queryOptions({
    queryKey: mailSafetyKeys.approvals(),
    queryFn: async ({ client: queryClient }) => {
      const approvals = await unwrap(client.GET("/app/api/v1/approvals"));
      queryClient.setQueryData<MailSafety>(mailSafetyKeys.overview(), (overview) =>
        overview && overview.awaiting_approval !== approvals.total
          ? { ...overview, awaiting_approval: approvals.total }
          : overview,
      );
      return approvals;
    },
  });

/**
 * A change to which cards wait (approved, cancelled, stopped because the home became a customer):
 * Approvals, its count in the menu, and Mail are read again.
 */
export function useInvalidateSafety() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: mailSafetyKeys.all }),
      queryClient.invalidateQueries({ queryKey: mailKeys.all }),
    ]);
}

/** Saved by the builder's Save, which leads to sign-in itself on a 401 (as `useUpdateAutomation`). */
export function useUpdateAutomationSafety(id: string) {
  const invalidate = useInvalidateSafety();
  return useMutation({
    mutationFn: (body: AutomationSafetyPatch) =>
      unwrap(client.PATCH("/app/api/v1/automations/{id}/safety", { params: { path: { id } }, body })),
    onSuccess: invalidate,
    meta: { signsInOnSessionEnd: true },
  });
}

export function useUpdateMailSafety() {
  const invalidate = useInvalidateSafety();
  return useMutation({
    mutationFn: (body: MailSafetyPatch) => unwrap(client.PATCH("/app/api/v1/mail-safety", { body })),
    onSuccess: invalidate,
  });
}

/**
 * Approves the cards as they were shown: one edited since stays waiting (`changed_piece_ids`).
 * `quiet`: the caller shows a failure itself (the approve dialog), so no toast repeats it.
 */
export function useApprovePieces({ quiet = false }: { quiet?: boolean } = {}) {
  const invalidate = useInvalidateSafety();
  return useMutation({
    meta: quiet ? { quiet: true } : undefined,
    mutationFn: (cards: Pick<ApprovalCard, "id" | "card_version">[]) =>
      unwrap(
        client.POST("/app/api/v1/approvals/approve", {
          body: {
            piece_ids: cards.map((card) => card.id),
            card_versions: Object.fromEntries(cards.map((card) => [card.id, card.card_version])),
          },
        }),
      ),
    onSuccess: invalidate,
  });
}

/** Cards are cancelled from the cancel dialog, which shows a failure itself: no toast repeats it. */
export function useCancelPieces() {
  const invalidate = useInvalidateSafety();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (pieceIds: string[]) =>
      unwrap(client.POST("/app/api/v1/approvals/cancel", { body: { piece_ids: pieceIds } })),
    onSuccess: invalidate,
  });
}

/** Shown in the cancel dialog when it fails, as `useCancelPieces`. */
export function useCancelPiece() {
  const invalidate = useInvalidateSafety();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (id: string) =>
      unwrap(client.POST("/app/api/v1/pieces/{id}/cancel", { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

/** Approves the card its page shows (`cardVersion`); one edited since is refused (409 card_changed). */
export function useApprovePiece() {
  const invalidate = useInvalidateSafety();
  return useMutation({
    mutationFn: ({ id, cardVersion }: { id: string; cardVersion: string | null }) =>
      unwrap(
        client.POST("/app/api/v1/pieces/{id}/approve", {
          params: { path: { id }, query: cardVersion ? { card_version: cardVersion } : {} },
        }),
      ),
    // A refused approval shows the card as it is now.
    onSettled: invalidate,
  });
}

export function useCancelAutomationWaiting(id: string) {
  const invalidate = useInvalidateSafety();
  return useMutation({
    mutationFn: () =>
      unwrap(client.POST("/app/api/v1/automations/{id}/waiting-pieces/cancel", { params: { path: { id } } })),
    onSuccess: invalidate,
  });
}

/** Whole dollars and cents as the contractor types them, to the API's cents. */
export const centsOf = (dollars: number) => Math.round(dollars * 100);
export const formatCents = (cents: number) => exactMoney(cents / 100);

/** A cap and its use this month, said for a person ("12 of 50 cards"). */
export function capInWords(use: {
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
  cards: number;
  cents: number;
}): string {
  const parts: string[] = [];
  // The caps count cards handed to print, which the Overview's "Cards mailed" counts only once mailed.
  if (use.monthly_card_cap !== null) parts.push(`${use.cards} of ${use.monthly_card_cap} cards`);
  if (use.monthly_spend_cap_cents !== null)
    parts.push(`${formatCents(use.cents)} of ${formatCents(use.monthly_spend_cap_cents)}`);
  return parts.length > 0
    ? `${parts.join(" · ")} sent to print`
    : `${count(use.cards, "card")} sent to print, no cap`;
}

/** How full the tightest cap is, 0–100 (null without a cap). */
export function capPercent(use: {
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
  cards: number;
  cents: number;
}): number | null {
  const shares: number[] = [];
  if (use.monthly_card_cap !== null)
    shares.push(use.monthly_card_cap === 0 ? 100 : (use.cards / use.monthly_card_cap) * 100);
  if (use.monthly_spend_cap_cents !== null)
    shares.push(use.monthly_spend_cap_cents === 0 ? 100 : (use.cents / use.monthly_spend_cap_cents) * 100);
  return shares.length > 0 ? Math.min(100, Math.max(...shares)) : null;
}

/** The link to the cards awaiting approval, worded for how many wait ("Review it" for one card). */
export const reviewInApprovals = (waiting: number) =>
  waiting === 1 ? "Review it in Approvals" : "Review them in Approvals";
