import { randomUUID } from "node:crypto";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { automations } from "../db/schema.ts";
import type { AutomationFilter } from "../domain/filters.ts";
import type { StopCondition } from "../domain/stop-conditions.ts";
import { invalidPayload, notFound } from "../errors.ts";
import {
  type Audience,
  type AudienceInput,
  FORMER_NEIGHBOUR_DEFAULT_TEMPLATE,
  isNeighbours,
  NEIGHBOUR_DEFAULT_TEMPLATE,
  resolveAudience,
  storedAudience,
} from "../neighbours/audience.ts";
import { loadCardSender } from "../orgs/card-sender.ts";
import { overflowProblem, templateOverflow } from "../render/card-fit.ts";
import { templateProblems } from "../render/merge.ts";
import { type CardTemplateInput, type ResolvedTemplate, resolveTemplate } from "../render/template.ts";
import {
  assertStepsPrint,
  inMailingOrder,
  type SequenceStep,
  storedSteps,
  storedStopWhen,
} from "./sequence-steps.ts";

export type ObjectType = "job" | "deal" | "contact";

export interface AutomationTrigger {
  type: "custom_api";
  event_type: string;
  object_type?: ObjectType;
}

export interface Automation {
  id: string;
  org_id: string;
  name: string;
  enabled: boolean;
  kind: "standard" | "deal_won";
  trigger: AutomationTrigger | null;
  filters: AutomationFilter[];
  suppress_customers: boolean;
  /** Who is mailed: the record's home, or its neighbours. */
  audience: Audience;
  /** Follow-up cards after the first (sequence-steps.ts), in mailing order. */
  steps: SequenceStep[];
  stop_when: StopCondition[];
  /** The share of homes kept out of the mail to measure what it adds (domain/holdout-group.ts). */
  holdout_percent: number;
  created_at: string;
  updated_at: string;
}

export interface AutomationInput {
  name: string;
  enabled?: boolean;
  kind?: "standard" | "deal_won";
  trigger?: AutomationTrigger | null;
  filters?: AutomationFilter[];
  suppress_customers?: boolean;
  audience?: AudienceInput;
  steps?: SequenceStep[];
  stop_when?: StopCondition[];
  holdout_percent?: number;
}

/** Events bind as `custom.<event_type>` (the hidden `custom` connection). */
export const bindingOf = (eventType: string) => `custom.${eventType}`;

type Row = typeof automations.$inferSelect;

export function toAutomation(row: Row): Automation {
  const eventType = row.triggerBinding?.startsWith("custom.")
    ? row.triggerBinding.slice("custom.".length)
    : null;
  return {
    id: row.id,
    org_id: row.orgId,
    name: row.name,
    enabled: row.enabled,
    kind: row.kind,
    trigger: eventType
      ? {
          type: "custom_api",
          event_type: eventType,
          ...(row.triggerObjectType ? { object_type: row.triggerObjectType } : {}),
        }
      : null,
    filters: row.filters as AutomationFilter[],
    suppress_customers: row.suppressCustomers,
    audience: resolveAudience(row.audience as AudienceInput | null),
    steps: storedSteps(row.steps),
    stop_when: storedStopWhen(row.stopWhen),
    holdout_percent: row.holdoutPercent,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function triggerColumns(trigger: AutomationTrigger | null | undefined) {
  return {
    triggerBinding: trigger ? bindingOf(trigger.event_type) : null,
    triggerObjectType: trigger?.object_type ?? null,
  };
}

/** Follow-ups as stored: checked to print as written (a 422 names the field), in mailing order. */
async function sequenceColumns(db: Queryable, orgId: string, input: Partial<AutomationInput>) {
  const columns: { steps?: SequenceStep[]; stopWhen?: StopCondition[] } = {};
  if (input.steps !== undefined) {
    assertStepsPrint(input.steps, await loadCardSender(db, orgId));
    columns.steps = inMailingOrder(input.steps);
  }
  if (input.stop_when !== undefined) columns.stopWhen = input.stop_when;
  return columns;
}

export async function createAutomation(
  db: Queryable,
  orgId: string,
  input: AutomationInput,
): Promise<Automation> {
  const sequence = await sequenceColumns(db, orgId, input);
  const [row] = await db
    .insert(automations)
    .values({
      orgId,
      id: randomUUID(),
      name: input.name,
      enabled: input.enabled ?? true,
      kind: input.kind ?? "standard",
      ...triggerColumns(input.trigger),
      filters: input.filters ?? [],
      suppressCustomers: input.suppress_customers ?? suppressesCustomersByDefault(input.kind ?? "standard"),
      audience: storedAudience(input.audience ?? { type: "home" }),
      template: isNeighbours(resolveAudience(input.audience)) ? NEIGHBOUR_DEFAULT_TEMPLATE : null,
      ...sequence,
      holdoutPercent: input.holdout_percent ?? 0,
      holdoutSince: (input.holdout_percent ?? 0) > 0 ? sql`now()` : null,
    })
    .returning();
  return toAutomation(row!);
}

/**
 * A deal_won automation mails the customer whose deal it just recorded: suppressing customers
 * would suppress its every card. A change of kind without `suppress_customers` takes the new
 * kind's default.
 */
export function suppressesCustomersByDefault(kind: Automation["kind"]): boolean {
  return kind !== "deal_won";
}

/**
 * Whether a card of a draft of kind `kind` suppresses customers: the saved automation's own choice
 * while the kind stays, else the kind's default (as a save of that draft would store it).
 */
export function draftSuppressesCustomers(saved: Automation | undefined, kind: Automation["kind"]): boolean {
  return saved && saved.kind === kind ? saved.suppress_customers : suppressesCustomersByDefault(kind);
}

/** A PATCH naming the kind it already has keeps an explicit `suppress_customers` (compared in SQL, on the row as it was). */
function suppressionOf(patch: Partial<AutomationInput>): { suppressCustomers?: boolean | SQL } {
  if (patch.suppress_customers !== undefined) return { suppressCustomers: patch.suppress_customers };
  if (patch.kind === undefined) return {};
  const byDefault = suppressesCustomersByDefault(patch.kind);
  return {
    suppressCustomers: sql`CASE WHEN ${automations.kind} = ${patch.kind} THEN ${automations.suppressCustomers} ELSE ${byDefault} END`,
  };
}

/**
 * The audience column, and the template that goes with it: an automation turned to neighbours
 * without a template of its own gets the neighbour card's default (job street and city only);
 * turned back to the home, that default gives way to the home card's again.
 */
function audienceColumns(input: AudienceInput | undefined): { audience?: Audience | null; template?: SQL } {
  if (input === undefined) return {};
  const audience = storedAudience(input);
  const neighbourDefault = JSON.stringify(NEIGHBOUR_DEFAULT_TEMPLATE);
  const formerDefault = JSON.stringify(FORMER_NEIGHBOUR_DEFAULT_TEMPLATE);
  const template = audience
    ? sql`COALESCE(${automations.template}, ${neighbourDefault}::jsonb)`
    : sql`CASE WHEN ${automations.template} IN (${neighbourDefault}::jsonb, ${formerDefault}::jsonb) THEN NULL ELSE ${automations.template} END`;
  return { audience, template };
}

/** The holdout's share, and when it was turned on: a raise from 0 starts its comparison anew (compared in SQL, on the row as it was). */
function holdoutColumns(percent: number | undefined): { holdoutPercent?: number; holdoutSince?: SQL } {
  if (percent === undefined) return {};
  return {
    holdoutPercent: percent,
    holdoutSince: sql`CASE WHEN ${automations.holdoutPercent} = 0 AND ${percent}::int > 0 THEN now() ELSE ${automations.holdoutSince} END`,
  };
}

export async function updateAutomation(
  db: Queryable,
  id: string,
  patch: Partial<AutomationInput>,
): Promise<Automation> {
  const [owner] = await db
    .select({ orgId: automations.orgId })
    .from(automations)
    .where(eq(automations.id, id));
  if (!owner) throw notFound("automation not found");
  const sequence = await sequenceColumns(db, owner.orgId, patch);
  const [row] = await db
    .update(automations)
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      ...(patch.kind !== undefined ? { kind: patch.kind } : {}),
      ...(patch.trigger !== undefined ? triggerColumns(patch.trigger) : {}),
      ...(patch.filters !== undefined ? { filters: patch.filters } : {}),
      ...suppressionOf(patch),
      ...audienceColumns(patch.audience),
      ...sequence,
      ...holdoutColumns(patch.holdout_percent),
      updatedAt: new Date(),
    })
    .where(eq(automations.id, id))
    .returning();
  if (!row) throw notFound("automation not found");
  return toAutomation(row);
}

export async function listAutomations(db: Queryable, orgId: string): Promise<Automation[]> {
  const rows = await db
    .select()
    .from(automations)
    .where(eq(automations.orgId, orgId))
    .orderBy(desc(automations.createdAt), desc(automations.id));
  return rows.map(toAutomation);
}

/** The org's automation, or undefined; another org's id is indistinguishable from a missing one. */
export async function findAutomation(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<Automation | undefined> {
  const [row] = await db
    .select()
    .from(automations)
    .where(and(eq(automations.orgId, orgId), eq(automations.id, id)));
  return row ? toAutomation(row) : undefined;
}

/** Enabled automations bound to `custom.<eventType>` (the candidates before object-type pinning). */
export async function findBoundAutomations(
  db: Queryable,
  orgId: string,
  eventType: string,
): Promise<Automation[]> {
  const rows = await db
    .select()
    .from(automations)
    .where(
      and(
        eq(automations.orgId, orgId),
        eq(automations.triggerBinding, bindingOf(eventType)),
        eq(automations.enabled, true),
      ),
    )
    .orderBy(automations.createdAt, automations.id);
  return rows.map(toAutomation);
}

/** The org's automation's stored card template (null when it has none or is not the org's). */
export async function findAutomationTemplate(db: Queryable, orgId: string, id: string): Promise<unknown> {
  const [row] = await db
    .select({ template: automations.template })
    .from(automations)
    .where(and(eq(automations.orgId, orgId), eq(automations.id, id)));
  return row?.template ?? null;
}

/**
 * Replaces an automation's stored card template, within the org when one is given; `updatedAt`
 * when the change counts as an edit of the automation. Undefined when there is no such automation.
 */
export async function storeAutomationTemplate(
  db: Queryable,
  target: { orgId?: string; id: string },
  template: Record<string, unknown>,
  updatedAt?: Date,
): Promise<{ id: string; template: unknown } | undefined> {
  const [row] = await db
    .update(automations)
    .set({ template, ...(updatedAt ? { updatedAt } : {}) })
    .where(
      and(
        eq(automations.id, target.id),
        target.orgId === undefined ? undefined : eq(automations.orgId, target.orgId),
      ),
    )
    .returning({ id: automations.id, template: automations.template });
  return row;
}

/** An automation's card template as it prints (defaults filled in), for an operator about to replace it. */
export async function automationTemplate(
  db: Queryable,
  automationId: string,
): Promise<{ automation_id: string; template: ResolvedTemplate }> {
  const [row] = await db
    .select({ template: automations.template })
    .from(automations)
    .where(eq(automations.id, automationId));
  if (!row) throw notFound("automation not found");
  return { automation_id: automationId, template: resolveTemplate(row.template) };
}

/** Stores an automation's card template after checking its merge fields; answers the effective one. */
export async function setAutomationTemplate(
  deps: { db: Queryable; clock: Clock },
  automationId: string,
  template: CardTemplateInput,
): Promise<{ automation_id: string; template: ResolvedTemplate }> {
  for (const field of ["headline", "message", "offer"] as const) {
    const problems = templateProblems(template[field] ?? "");
    if (problems.length > 0) throw invalidPayload(`${field}: ${problems[0]}`);
  }
  const stored = Object.fromEntries(Object.entries(template).filter(([, value]) => value !== undefined));
  const [owner] = await deps.db
    .select({ orgId: automations.orgId })
    .from(automations)
    .where(eq(automations.id, automationId));
  if (!owner) throw notFound("automation not found");
  // What prints must be what was approved: a template the card would cut is refused, not cut.
  const resolved = resolveTemplate(stored);
  const [overflow] = templateOverflow(resolved, await loadCardSender(deps.db, owner.orgId));
  if (overflow) throw invalidPayload(`${overflow.field}: ${overflowProblem(overflow, resolved.size)}`);
  const row = await storeAutomationTemplate(deps.db, { id: automationId }, stored, deps.clock.now());
  if (!row) throw notFound("automation not found");
  return { automation_id: row.id, template: resolveTemplate(row.template) };
}
