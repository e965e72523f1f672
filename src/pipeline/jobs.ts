import { Type } from "@fastify/type-provider-typebox";
import { defineJobKind, exponentialBackoff } from "../jobs/job-kind.ts";

const PiecePayload = Type.Object({
  org_id: Type.String({ format: "uuid" }),
  piece_id: Type.String({ format: "uuid" }),
});

/**
 * A queued piece becomes a mailed postcard: suppression, geocoding, imagery, rendering, the
 * print provider. Enqueued in the transaction that inserts the piece.
 */
export const processPieceJob = defineJobKind({
  name: "process_piece",
  payload: PiecePayload,
  maxAttempts: 6,
  backoffSeconds: exponentialBackoff(30, 3600),
  timeoutSeconds: 180,
});

/** Locates a piece that is already mailed (recorded mailing history) for geo attribution. */
export const geocodePieceJob = defineJobKind({
  name: "geocode_piece",
  payload: PiecePayload,
  maxAttempts: 8,
  backoffSeconds: exponentialBackoff(60, 6 * 3600),
  timeoutSeconds: 60,
});
