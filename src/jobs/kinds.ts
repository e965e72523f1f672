import { type Static, Type } from "@fastify/type-provider-typebox";
import { defineJobKind, exponentialBackoff } from "./job-kind.ts";

/*
 * Every job kind: its name, payload, attempts and timing. Declared apart from the handlers (each in
 * its domain) so that any module may enqueue a kind without importing the module that runs it.
 */

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

/** Mails a neighbour campaign: the homes around the record's home (neighbours/neighbour-fanout.ts). */
export const NeighbourFanoutPayload = Type.Object({
  org_id: Type.String({ format: "uuid" }),
  campaign_id: Type.String({ format: "uuid" }),
  automation_id: Type.String({ format: "uuid" }),
  /** The record's home: its reference key and point (internal; never printed). */
  home_key: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  /** What the cards may say about the job: its street without the number, and its city. */
  job_street: Type.String(),
  job_city: Type.String(),
  count: Type.Integer({ minimum: 1 }),
  radius_m: Type.Integer({ minimum: 1 }),
  queued_at: Type.String({ format: "date-time" }),
});
export type NeighbourFanoutPayload = Static<typeof NeighbourFanoutPayload>;

export const neighbourFanoutJob = defineJobKind({
  name: "neighbour_fanout",
  payload: NeighbourFanoutPayload,
  maxAttempts: 6,
  backoffSeconds: exponentialBackoff(30, 3600),
  timeoutSeconds: 120,
  heldWhilePaused: true,
});

/**
 * One `lead.created` POST to one subscription. Retries cover only failures before the request
 * leaves (the database was unreachable); a request that was sent is never repeated, whatever
 * the receiver answered, and the job's id doubles as the delivery's id to make that hold.
 */
export const deliverLeadJob = defineJobKind({
  name: "deliver_lead",
  payload: Type.Object({
    org_id: Type.String({ format: "uuid" }),
    lead_id: Type.String({ format: "uuid" }),
    subscription_id: Type.String({ format: "uuid" }),
  }),
  maxAttempts: 3,
  backoffSeconds: exponentialBackoff(30, 600),
  timeoutSeconds: 60,
  urgent: true,
  // Half a worker's 16 slots: one org's receivers that hang (10 s each) leave the other half to
  // every other org and to mail work, while a healthy org's lead to its 20 subscriptions still
  // goes out in three rounds of quick requests.
  maxRunningPerOrg: 8,
});

/** A new landing-page lead's alert emails (leads/lead-alerts.ts). */
export const leadAlertJob = defineJobKind({
  name: "lead_alert",
  payload: Type.Object({
    org_id: Type.String({ format: "uuid" }),
    lead_id: Type.String({ format: "uuid" }),
  }),
  maxAttempts: 5,
  backoffSeconds: exponentialBackoff(30, 1800),
  timeoutSeconds: 60,
});

/** The email to one owner of an organization when a monthly cap first holds a piece (mail-safety/cap-notice.ts). */
export const capNoticeJob = defineJobKind({
  name: "cap_notice",
  payload: Type.Object({
    org_id: Type.String({ format: "uuid" }),
    reason: Type.String(),
    /** Absent in jobs queued before notices went one per owner: those mail every owner. */
    user_id: Type.Optional(Type.String()),
  }),
  maxAttempts: 5,
  backoffSeconds: exponentialBackoff(60, 3600),
  timeoutSeconds: 60,
});

/**
 * One HubSpot webhook event (hubspot/event-job.ts): the record is read from HubSpot's CRM API and
 * becomes an event automations bind to, and a deal moved into a won stage a conversion. The event
 * itself waits in hubspot_events; the job carries its key.
 */
export const hubspotEventJob = defineJobKind({
  name: "hubspot_event",
  payload: Type.Object({
    org_id: Type.String({ format: "uuid" }),
    event_id: Type.String({ minLength: 1, maxLength: 64 }),
  }),
  maxAttempts: 6,
  backoffSeconds: exponentialBackoff(30, 3600),
  timeoutSeconds: 120,
  // Its events queue cards: held with the rest of automation work while the kill switch is on.
  heldWhilePaused: true,
});

/**
 * Draws ahead the thumbnails of Mail's first page, an organization's newest cards but those still
 * queued (pieces/card-images-sweep.ts), so the first look reads them from the database. One pending
 * job per organization: the cards that leave the queue or go to the printer while it is pending are
 * drawn by it too. Nothing depends on it: the list draws what it finds missing. Its name predates
 * printed cards; it stays, as pending jobs are stored under it.
 */
export const drawCardImagesJob = defineJobKind({
  name: "draw_waiting_cards",
  payload: Type.Object({ org_id: Type.String({ format: "uuid" }) }),
  maxAttempts: 3,
  backoffSeconds: exponentialBackoff(60, 600),
  timeoutSeconds: 120,
  // Writers at the same instant can each queue one (neither sees the other's uncommitted job); run
  // one after the other, the second finds every card drawn and draws nothing.
  maxRunningPerOrg: 1,
});
