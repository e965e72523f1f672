import { queryOptions } from "@tanstack/react-query";
import { client, type Paths, type ResponseOf, unwrap } from "./client.ts";

export type PieceFilters = NonNullable<Paths["/app/api/v1/pieces"]["get"]["parameters"]["query"]>;
export type PieceStatus = NonNullable<PieceFilters["status"]>;
export type PieceSummary = ResponseOf<"/app/api/v1/pieces", "get">["pieces"][number];
export type Piece = ResponseOf<"/app/api/v1/pieces/{id}", "get">;

/** Every status a piece can have, in the order a card lives through them (the filter offers them in this order). */
export const PIECE_STATUSES: readonly PieceStatus[] = [
  "queued",
  "held",
  "awaiting_approval",
  "capped",
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
  "returned",
  "suppressed",
  "failed",
  "skipped",
  "cancelled",
  "undeliverable",
];

/** A status as the contractor reads it. */
export const statusLabel = (status: string) => {
  const words = status.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Statuses where the card stopped (the piece says why). */
export const STOPPED_STATUSES = new Set([
  "failed",
  "suppressed",
  "skipped",
  "cancelled",
  "undeliverable",
  "returned",
  "capped",
]);

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

export const pieceQuery = (id: string) =>
  queryOptions({
    queryKey: mailKeys.piece(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/pieces/{id}", { params: { path: { id } } })),
  });
