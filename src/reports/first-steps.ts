// The first-run checklist of the app's Overview: each step is done when the data says so, never
// when a person ticks it, so the list stays true whoever did the step and wherever.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, sql } from "../db/database.ts";

/** The checklist as the app API answers it (GET /first-steps). */
export const FirstSteps = Type.Object(
  {
    // What every card prints.
    business_profile: Type.Boolean({
      description: "Settings has a business name and a return address.",
    }),
    automation: Type.Boolean({ description: "At least one automation exists." }),
    // What a CRM, Zapier flow or developer connects with.
    api_key: Type.Boolean({
      description:
        "At least one API key is live (not revoked); the demo key a first start makes for its demo organization counts once something has used it.",
    }),
    // A test event counts.
    event: Type.Boolean({
      description:
        "At least one event has arrived through the developer API, or an owner sent a test card from an automation (its record is kept as a sample).",
    }),
  },
  { additionalProperties: false },
);
export type FirstSteps = Static<typeof FirstSteps>;

export async function firstSteps(db: Queryable, orgId: string): Promise<FirstSteps> {
  const org = sql`${orgId}::uuid`;
  const row = await queryOne<FirstSteps>(
    db,
    sql`SELECT
          EXISTS (SELECT 1 FROM organization_profiles WHERE org_id = ${org}
                  AND btrim(coalesce(business_name, '')) <> '' AND btrim(coalesce(return_street, '')) <> '')
            AS business_profile,
          EXISTS (SELECT 1 FROM automations WHERE org_id = ${org}) AS automation,
          EXISTS (SELECT 1 FROM api_keys WHERE org_id = ${org} AND revoked_at IS NULL
                  AND (NOT demo OR last_used_at IS NOT NULL)) AS api_key,
          EXISTS (SELECT 1 FROM event_samples WHERE org_id = ${org}) AS event`,
  );
  return {
    business_profile: Boolean(row?.business_profile),
    automation: Boolean(row?.automation),
    api_key: Boolean(row?.api_key),
    event: Boolean(row?.event),
  };
}
