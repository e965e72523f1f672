import { queryOptions } from "@tanstack/react-query";
import { client, unwrap } from "./client.ts";

export const mailKeys = {
  all: ["mail"] as const,
  pieces: (cursor?: string) => [...mailKeys.all, "pieces", cursor ?? ""] as const,
};

export const piecesQuery = (cursor?: string) =>
  queryOptions({
    queryKey: mailKeys.pieces(cursor),
    queryFn: () => unwrap(client.GET("/app/api/v1/pieces", { params: { query: cursor ? { cursor } : {} } })),
  });
