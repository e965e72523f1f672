// An automation's holdout experiment (issue 42): the homes it mailed against the homes it held
// out, their conversion rates, the lift and its 95 % interval, and what the mail added.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { riskRatio } from "../domain/lift-interval.ts";
import { sameHome } from "../domain/same-home.ts";

const Rate = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const Experiment = Type.Object(
  {
    holdout_percent: Type.Integer({ description: "The automation's holdout share now (0 to 50)." }),
    started_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description:
        "When the comparison starts, within the period: when the automation's holdout was turned on (every home since was drawn for one group or the other), or its first held-out home where that is earlier or not known (automations from before 2026-12-06); cards mailed before are not compared. Null while there is nothing to compare.",
    }),
    mailed_homes: Type.Integer({
      description: "Homes mailed since the comparison started (started_at).",
    }),
    holdout_homes: Type.Integer({ description: "Homes held out (in the period)." }),
    mailed_conversions: Type.Integer({ description: "Mailed homes with an attributed won deal." }),
    holdout_conversions: Type.Integer({
      description: "Held-out homes with a won deal within 180 days of being held out.",
    }),
    mailed_rate: Rate("mailed_conversions ÷ mailed_homes; null without mailed homes."),
    holdout_rate: Rate("holdout_conversions ÷ holdout_homes; null without held-out homes."),
    lift: Rate(
      "(mailed_rate − holdout_rate) ÷ holdout_rate; null while either rate is unknown or the holdout rate is 0.",
    ),
    lift_ci95_low: Rate(
      "The lift's 95 % interval, low end (Katz log method for the risk ratio, minus 1); null while either group has no conversion.",
    ),
    lift_ci95_high: Rate("The lift's 95 % interval, high end; null as lift_ci95_low."),
    incremental_conversions: Rate(
      "mailed_conversions − holdout_rate × mailed_homes: the deals the mail added; null without held-out homes.",
    ),
    incremental_revenue: Rate(
      "incremental_conversions × the mailed group's attributed revenue per converting home (its revenue ÷ mailed_conversions); null without mailed conversions.",
    ),
  },
  { additionalProperties: false },
);
export type Experiment = Static<typeof Experiment>;

/** What the database counts for one automation; the figures follow from it. */
export interface ExperimentCounts {
  holdoutPercent: number;
  /** When the comparison starts (see Experiment.started_at); null while there is nothing to compare. */
  startedAt: Date | null;
  mailedHomes: number;
  holdoutHomes: number;
  mailedConversions: number;
  holdoutConversions: number;
  /** The attributed revenue of the mailed group's conversions. */
  mailedRevenue: number;
}

const rounded = (value: number, places: number) => {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
};
const orNull = (value: number | null | undefined, places: number) =>
  value === null || value === undefined ? null : rounded(value, places);

/** The experiment's figures: rates and lift to 4 decimals, conversions to 2, revenue to cents. */
export function experimentFigures(counts: ExperimentCounts): Experiment {
  const mailedRate = counts.mailedHomes > 0 ? counts.mailedConversions / counts.mailedHomes : null;
  const holdoutRate = counts.holdoutHomes > 0 ? counts.holdoutConversions / counts.holdoutHomes : null;
  const lift = mailedRate !== null && holdoutRate ? (mailedRate - holdoutRate) / holdoutRate : null;
  const interval = riskRatio(
    { homes: counts.mailedHomes, conversions: counts.mailedConversions },
    { homes: counts.holdoutHomes, conversions: counts.holdoutConversions },
  );
  const incremental =
    holdoutRate === null ? null : counts.mailedConversions - holdoutRate * counts.mailedHomes;
  const averageDeal = counts.mailedConversions > 0 ? counts.mailedRevenue / counts.mailedConversions : null;
  return {
    holdout_percent: counts.holdoutPercent,
    started_at: counts.startedAt?.toISOString() ?? null,
    mailed_homes: counts.mailedHomes,
    holdout_homes: counts.holdoutHomes,
    mailed_conversions: counts.mailedConversions,
    holdout_conversions: counts.holdoutConversions,
    mailed_rate: orNull(mailedRate, 4),
    holdout_rate: orNull(holdoutRate, 4),
    lift: orNull(lift, 4),
    lift_ci95_low: orNull(interval && interval.low - 1, 4),
    lift_ci95_high: orNull(interval && interval.high - 1, 4),
    incremental_conversions: orNull(incremental, 2),
    incremental_revenue:
      incremental === null || averageDeal === null ? null : rounded(incremental * averageDeal, 2),
  };
}

/**
 * The counts of each of the org's automations that has a holdout now or held homes out since
 * `since`. The experiment starts when the holdout was turned on (or at the first held-out home, if
 * earlier or not known), within the period: homes it mailed before had no holdout to compare with.
 * A home counts once per group (its address key), and in one group only: a home the automation held out and also mailed in the period (a changed
 * percent) is a mailed home. A group's converted homes are among its homes (conversions of pieces
 * in the group).
 */
export async function experimentCounts(
  db: Queryable,
  orgId: string,
  since: Date,
): Promise<Map<string, ExperimentCounts>> {
  const org = sql`${orgId}::uuid`;
  const from = sql`${since.toISOString()}::timestamptz`;
  const rows = await queryRows<{
    automation_id: string;
    holdout_percent: number;
    started_at: Date | string | null;
    mailed_homes: string | number;
    holdout_homes: string | number;
    mailed_conversions: string | number;
    holdout_conversions: string | number;
    mailed_revenue: string | number | null;
    mailed_variants: KeyOfHome[] | null;
    held_variants: KeyOfHome[] | null;
  }>(
    db,
    sql`WITH held AS (
          SELECT c.automation_id, p.id, p.normalized_address, p.status_updated_at
          FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
          WHERE p.org_id = ${org} AND p.status = 'held_out' AND p.status_updated_at >= ${from}),
        first_held AS (SELECT automation_id, min(status_updated_at) AS held_at FROM held GROUP BY automation_id),
        -- From when the holdout was turned on (every home since was drawn), else from the first
        -- held-out home (automations from before holdout_since was kept), within the period.
        started AS (
          SELECT a.id AS automation_id, GREATEST(${from}, LEAST(a.holdout_since, f.held_at)) AS started_at
          FROM automations a LEFT JOIN first_held f ON f.automation_id = a.id
          WHERE a.org_id = ${org} AND (f.held_at IS NOT NULL OR (a.holdout_percent > 0 AND a.holdout_since IS NOT NULL))),
        -- A test card (sent from the builder to a typed address) was never drawn: not a mailed home.
        mailed AS (
          SELECT c.automation_id, p.id, p.normalized_address
          FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
          JOIN started s ON s.automation_id = c.automation_id
          WHERE p.org_id = ${org} AND p.mailed_at >= s.started_at AND c.origin <> 'test_card'),
        held_won AS (SELECT DISTINCT piece_id FROM holdout_conversions WHERE org_id = ${org}),
        held_keys AS (
          SELECT h.automation_id, h.normalized_address AS key, bool_or(w.piece_id IS NOT NULL) AS converted
          FROM held h LEFT JOIN held_won w ON w.piece_id = h.id
          -- A home the automation also mailed (its percent lowered, or raised after the card) got
          -- the card: it is a mailed home, not a control, so one deal never counts on both sides.
          WHERE NOT EXISTS (SELECT 1 FROM mailed m
                            WHERE m.automation_id = h.automation_id AND m.normalized_address = h.normalized_address)
          GROUP BY h.automation_id, h.normalized_address),
        mailed_keys AS (
          SELECT m.automation_id, m.normalized_address AS key, bool_or(v.id IS NOT NULL) AS converted,
                 COALESCE(sum(v.deal_amount), 0) AS revenue
          FROM mailed m LEFT JOIN conversions v ON v.org_id = ${org} AND v.piece_id = m.id
          GROUP BY m.automation_id, m.normalized_address),
        held_figures AS (
          SELECT automation_id, count(*) AS homes, count(*) FILTER (WHERE converted) AS converted
          FROM held_keys GROUP BY automation_id),
        mailed_figures AS (
          SELECT automation_id, count(*) AS homes, count(*) FILTER (WHERE converted) AS converted,
                 sum(revenue) AS revenue
          FROM mailed_keys GROUP BY automation_id),
        ${variantsOf("held")},
        ${variantsOf("mailed")}
        SELECT a.id AS automation_id, a.holdout_percent, st.started_at,
               COALESCE(mf.homes, 0) AS mailed_homes, COALESCE(hf.homes, 0) AS holdout_homes,
               COALESCE(mf.converted, 0) AS mailed_conversions, COALESCE(hf.converted, 0) AS holdout_conversions,
               COALESCE(mf.revenue, 0) AS mailed_revenue,
               mv.keys AS mailed_variants, hv.keys AS held_variants
        FROM automations a
        LEFT JOIN started st ON st.automation_id = a.id
        LEFT JOIN held_figures hf ON hf.automation_id = a.id
        LEFT JOIN mailed_figures mf ON mf.automation_id = a.id
        LEFT JOIN held_variants hv ON hv.automation_id = a.id
        LEFT JOIN mailed_variants mv ON mv.automation_id = a.id
        WHERE a.org_id = ${org}
          AND (a.holdout_percent > 0 OR EXISTS (SELECT 1 FROM started s WHERE s.automation_id = a.id))`,
  );
  return new Map(
    rows.map((row) => {
      const mailed = homesOnceEach(
        Number(row.mailed_homes),
        Number(row.mailed_conversions),
        row.mailed_variants,
      );
      const held = homesOnceEach(
        Number(row.holdout_homes),
        Number(row.holdout_conversions),
        row.held_variants,
      );
      return [
        row.automation_id,
        {
          holdoutPercent: Number(row.holdout_percent),
          startedAt: row.started_at === null ? null : new Date(row.started_at),
          mailedHomes: mailed.homes,
          holdoutHomes: held.homes,
          mailedConversions: mailed.conversions,
          holdoutConversions: held.conversions,
          mailedRevenue: Number(row.mailed_revenue ?? 0),
        },
      ];
    }),
  );
}

/** A group's address key that shares its street with another key of the group, and whether it converted. */
type KeyOfHome = [key: string, converted: boolean];

/**
 * The keys of a group (`held` or `mailed`) that share their street with another of the group's
 * keys, by automation: the only ones that can be one home written two ways ("20 ELM ST,
 * SPRINGFIELD IL 62704" and "20 ELM ST, IL 62704"). Few, so they are merged in TypeScript by the
 * same rule as everywhere else (`sameHome`), which needs the ZIP table.
 */
const variantsOf = (group: "held" | "mailed") =>
  sql.raw(`${group}_variants AS (
          SELECT automation_id, jsonb_agg(jsonb_build_array(key, converted)) AS keys
          FROM (SELECT automation_id, key, converted,
                       count(*) OVER (PARTITION BY automation_id, split_part(key, ', ', 1)) AS on_street
                FROM ${group}_keys) k
          WHERE on_street > 1 GROUP BY automation_id)`);

/**
 * A group's homes and converted homes counted once each: the database counted address keys; keys
 * of one home (`sameHome`, with or without its city or ZIP) are one home, converted when any of
 * them converted.
 */
function homesOnceEach(
  keys: number,
  convertedKeys: number,
  variants: KeyOfHome[] | null,
): { homes: number; conversions: number } {
  if (!variants || variants.length === 0) return { homes: keys, conversions: convertedKeys };
  const homes: KeyOfHome[][] = [];
  for (const variant of variants) {
    const home = homes.find((keysOfHome) => keysOfHome.some(([key]) => sameHome(key, variant[0])));
    if (home) home.push(variant);
    else homes.push([variant]);
  }
  const convertedHomes = homes.filter((home) => home.some(([, converted]) => converted)).length;
  const convertedVariants = variants.filter(([, converted]) => converted).length;
  return {
    homes: keys - variants.length + homes.length,
    conversions: convertedKeys - convertedVariants + convertedHomes,
  };
}
