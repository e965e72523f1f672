import { type Static, Type } from "@fastify/type-provider-typebox";
import { defineJobKind, exponentialBackoff } from "../jobs/job-kind.ts";

const PiecePayload = Type.Object({
  org_id: Type.String({ format: "uuid" }),
  piece_id: Type.String({ format: "uuid" }),
});

const NullableText = Type.Union([Type.String(), Type.Null()]);

/**
 * The piece an event or the legacy trigger queued, carried by its first job: the request writes
 * only the campaign and this job, and the job's first run inserts the piece (by its id, so a
 * retry finds it written).
 */
export const QueuedPiece = Type.Object({
  campaign_id: Type.String({ format: "uuid" }),
  recipient_name: NullableText,
  address: Type.String(),
  street: NullableText,
  city: NullableText,
  state: NullableText,
  zip: NullableText,
  token: Type.String(),
  properties: Type.Record(Type.String(), Type.String()),
  /** When the request queued it: the piece's created_at. */
  queued_at: Type.String({ format: "date-time" }),
});
export type QueuedPiece = Static<typeof QueuedPiece>;

/**
 * A queued piece becomes a mailed postcard: suppression, geocoding, imagery, rendering, the
 * print provider. `piece`, when present, is the piece to insert first (see QueuedPiece).
 */
export const processPieceJob = defineJobKind({
  name: "process_piece",
  payload: Type.Object({ ...PiecePayload.properties, piece: Type.Optional(QueuedPiece) }),
  maxAttempts: 6,
  backoffSeconds: exponentialBackoff(30, 3600),
  timeoutSeconds: 180,
  heldWhilePaused: true,
});

/** Locates a piece that is already mailed (recorded mailing history) for geo attribution. */
export const geocodePieceJob = defineJobKind({
  name: "geocode_piece",
  payload: PiecePayload,
  maxAttempts: 8,
  backoffSeconds: exponentialBackoff(60, 6 * 3600),
  timeoutSeconds: 60,
});
