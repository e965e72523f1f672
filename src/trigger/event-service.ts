import type { Logger } from "pino";
import type { BoundAutomationCache } from "../automations/automation-cache.ts";
import type { KillSwitch } from "../automations/kill-switch.ts";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { mailAddressOf, nonBlank } from "../domain/address.ts";
import { ensureCustomConnection } from "./connections.ts";
import {
  assertEnvelopeRules,
  type CleanEnvelope,
  cleanEnvelope,
  type EventEnvelope,
  type EventResult,
} from "./envelope.ts";
import { newEventSample } from "./samples.ts";
import { findEventCandidates, runTrigger, type TriggerOutcome } from "./trigger-core.ts";
import type { TriggerStore } from "./trigger-store.ts";
import { appendWebhookLog } from "./webhook-log.ts";

/** What indirect attribution of a contact receives (the fields of POST /api/v1/tracking/lead). */
export interface ContactAttributionInput {
  address: string;
  email?: string;
  phone?: string;
  first_name?: string;
  last_name?: string;
  crm_record_id?: string;
  created_at?: string;
  /** Carried so the tracking-lead loop guard skips an event derived from one of our own leads. */
  service_lead_id?: string;
}

export type AttributeContact = (orgId: string, input: ContactAttributionInput) => Promise<void>;

export interface EventServiceDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  killSwitch: Pick<KillSwitch, "assertRunning">;
  boundAutomations: Pick<BoundAutomationCache, "find">;
  triggerStore: TriggerStore;
  /** The tracking-lead attribution a contact event goes through (spec rule 1, "for contacts"). */
  attributeContact: AttributeContact;
}

export interface EventService {
  ingest(orgId: string, envelope: EventEnvelope): Promise<EventResult>;
}

const WEBHOOK_LOG_SOURCE = "events";

/** A live contact event with a mailable address and an email or phone is attributed like a synced lead. */
export function contactAttributionOf(envelope: CleanEnvelope): ContactAttributionInput | undefined {
  if (envelope.object_type !== "contact") return undefined;
  const properties = envelope.record.properties;
  const address = mailAddressOf(properties);
  const email = nonBlank(properties.client_email);
  const phone = nonBlank(properties.client_phone);
  if (!address || (!email && !phone)) return undefined;
  const [firstName, ...rest] = (nonBlank(properties.client_name) ?? "").split(/\s+/);
  return {
    address: address.line,
    ...(email ? { email } : {}),
    ...(phone ? { phone } : {}),
    ...(firstName ? { first_name: firstName } : {}),
    ...(rest.length > 0 ? { last_name: rest.join(" ") } : {}),
    crm_record_id: envelope.record.id,
    ...(envelope.occurred_at ? { created_at: envelope.occurred_at } : {}),
    ...(properties.service_lead_id ? { service_lead_id: properties.service_lead_id } : {}),
  };
}

const publicOutcome = ({ automation_id, name, matched, reason }: TriggerOutcome) => ({
  automation_id,
  name,
  matched,
  reason,
});

export function createEventService(deps: EventServiceDeps): EventService {
  // The connection row never goes away, so once seen it need not be written again by this process;
  // an org's concurrent first events share one write.
  const orgsWithConnection = new Set<string>();
  const connectionWrites = new Map<string, Promise<void>>();
  function ensureConnection(orgId: string): Promise<void> | undefined {
    if (orgsWithConnection.has(orgId)) return undefined;
    let writing = connectionWrites.get(orgId);
    if (!writing) {
      writing = ensureCustomConnection(deps, orgId)
        .then(() => {
          if (orgsWithConnection.size > 100_000) orgsWithConnection.clear();
          orgsWithConnection.add(orgId);
        })
        .finally(() => connectionWrites.delete(orgId));
      connectionWrites.set(orgId, writing);
    }
    return writing;
  }

  async function attribute(orgId: string, envelope: CleanEnvelope, input: ContactAttributionInput) {
    try {
      await deps.attributeContact(orgId, input);
    } catch (error) {
      deps.logger.warn({ err: error, orgId }, "contact attribution failed");
      await appendWebhookLog(deps, orgId, {
        source: WEBHOOK_LOG_SOURCE,
        level: "warn",
        message: "contact attribution failed; the event itself was processed",
        eventType: envelope.event_type,
        dedupId: envelope.dedup_id,
      });
    }
  }

  return {
    async ingest(orgId, raw) {
      const envelope = cleanEnvelope(raw);
      assertEnvelopeRules(envelope, deps.clock.now());
      await deps.killSwitch.assertRunning();

      const live = !envelope.dry_run;
      const finding = findEventCandidates(
        deps.boundAutomations,
        orgId,
        envelope.event_type,
        envelope.object_type,
      );
      // Independent reads/writes of an org's first event: one round trip's wait instead of two.
      const connecting = live ? ensureConnection(orgId) : undefined;
      const candidates = connecting ? (await Promise.all([finding, connecting]))[0] : await finding;
      const result = await runTrigger(deps, {
        orgId,
        candidates,
        properties: envelope.record.properties,
        dedup: { kind: "event", key: envelope.dedup_id },
        origin: "event",
        source: WEBHOOK_LOG_SOURCE,
        dryRun: !live,
        eventType: envelope.event_type,
        ...(live ? { sample: newEventSample(orgId, envelope, deps.clock.now()) } : {}),
      });
      const contact = live ? contactAttributionOf(envelope) : undefined;
      if (contact) await attribute(orgId, envelope, contact);

      return {
        received: true,
        duplicate: result.duplicate,
        ...(live ? {} : { dry_run: true as const }),
        matched_automations: candidates.length,
        outcomes: result.outcomes.map(publicOutcome),
      };
    },
  };
}
