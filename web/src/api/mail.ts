import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type Paths, type ResponseOf, unwrap } from "./client.ts";

export type PieceFilters = NonNullable<Paths["/app/api/v1/pieces"]["get"]["parameters"]["query"]>;
export type PieceSummary = ResponseOf<"/app/api/v1/pieces", "get">["pieces"][number];
export type Piece = ResponseOf<"/app/api/v1/pieces/{id}", "get">;
export type PieceStatus = PieceSummary["status"];

/**
 * Where a status leaves the card: on its way (progress), waiting before print (a member can cancel
 * it, or approve it), delivered (done), or stopped without reaching the home.
 */
/** "compared": not mailed on purpose, the holdout group's half of a comparison (nothing went wrong). */
export type PieceStatusTone = "progress" | "waiting" | "done" | "stopped" | "compared";

/**
 * Every status a piece can have, as the contractor reads it, in the order a card lives through
 * them (the Mail filter offers them in this order). Exhaustive: a status the API adds fails the build.
 */
export const PIECE_STATUS: Record<PieceStatus, { label: string; tone: PieceStatusTone }> = {
  queued: { label: "Queued", tone: "progress" },
  held: { label: "On hold", tone: "waiting" },
  awaiting_approval: { label: "Awaiting approval", tone: "waiting" },
  capped: { label: "Monthly cap reached", tone: "waiting" },
  submitted: { label: "Sent to printer", tone: "progress" },
  mailed: { label: "Mailed", tone: "progress" },
  in_transit: { label: "In transit", tone: "progress" },
  delivered: { label: "Delivered", tone: "done" },
  returned: { label: "Returned to sender", tone: "stopped" },
  suppressed: { label: "Never mailed", tone: "stopped" },
  failed: { label: "Failed", tone: "stopped" },
  skipped: { label: "Skipped (mailed recently)", tone: "stopped" },
  cancelled: { label: "Cancelled", tone: "stopped" },
  undeliverable: { label: "Undeliverable address", tone: "stopped" },
  scheduled: { label: "Scheduled", tone: "waiting" },
  held_out: { label: "Held out (not mailed)", tone: "compared" },
};

/** The statuses in the table's order. */
export const PIECE_STATUSES = Object.keys(PIECE_STATUS) as PieceStatus[];

/** A tracking timeline step as the contractor reads it: a status, or the print file being drawn. */
export const stepLabel = (step: Piece["timeline"][number]["step"]) =>
  step === "rendered" ? "Print file ready" : PIECE_STATUS[step].label;

/**
 * The Automation filter's entry for reactivation mailings (sent from past jobs, no automation): the
 * list's Automation column names them by the mailing's own name.
 */
export const REACTIVATION_MAILINGS = "reactivation" as const;

export const mailKeys = {
  all: ["mail"] as const,
  pieces: (filters: Omit<PieceFilters, "cursor">, cursor?: string) =>
    [...mailKeys.all, "pieces", filters, cursor ?? ""] as const,
  piece: (id: string) => [...mailKeys.all, "piece", id] as const,
};

export const piecesQuery = (filters: Omit<PieceFilters, "cursor"> = {}, cursor?: string) =>
  queryOptions({
    queryKey: mailKeys.pieces(filters, cursor),
    queryFn: () =>
      unwrap(
        client.GET("/app/api/v1/pieces", { params: { query: cursor ? { ...filters, cursor } : filters } }),
      ),
  });

/** Rows an 800 px high window shows: their thumbnails are asked for first, each being a card drawn. */
export const ROWS_ON_A_LAPTOP = 8;

/**
 * Starts the browser fetching the first rows' thumbnails the moment the list arrives, while the rows
 * are still being rendered (a waiting card's thumbnail is drawn on request, ~30 ms of server CPU
 * each); the rows' <img> elements then find them in the browser's cache.
 */
export function preloadThumbnails(page: { pieces: { thumbnail_url: string }[] }): void {
  for (const piece of page.pieces.slice(0, ROWS_ON_A_LAPTOP)) new Image().src = piece.thumbnail_url;
}

/**
 * How often a card's page looks again: every 3 s while the card is queued (the worker decides it within
 * seconds of an approval or an event, so "Queued" on a page opened then would otherwise stay until a reload),
 * never for any other status (a held card waits minutes or more, a mailed one days).
 */
export const lookAgainWhileQueued = (query: { state: { data?: { status: string } } }) =>
  query.state.data?.status === "queued" ? 3000 : false;

export const pieceQuery = (id: string) =>
  queryOptions({
    queryKey: mailKeys.piece(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/pieces/{id}", { params: { path: { id } } })),
    refetchInterval: lookAgainWhileQueued,
  });

/**
 * Sends an undeliverable card again to a corrected address (owners): a new card, whose page the app
 * opens; Mail, Overview's attention and the old card's page are read again.
 */
export function useResendPiece(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { refusalsOnFields: true },
    mutationFn: (body: BodyOf<"/app/api/v1/pieces/{id}/resend", "post">) =>
      unwrap(client.POST("/app/api/v1/pieces/{id}/resend", { params: { path: { id } }, body })),
    onSuccess: () => queryClient.invalidateQueries(),
  });
}
