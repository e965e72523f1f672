/**
 * Which ZIPs have reference addresses loaded (table `reference_address_zips`, counted by the
 * statements that add homes): what the contractor's app shows, so a contractor knows before
 * binding a neighbour automation whether the homes around their jobs can be found.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { zipPlaces } from "../domain/zip-places.ts";

export const ZipCoverage = Type.Object(
  {
    zip: Type.String(),
    city: Type.Union([Type.String(), Type.Null()], {
      description: "The ZIP's main city (offline ZIP table).",
    }),
    state: Type.Union([Type.String(), Type.Null()]),
    homes: Type.Integer({ description: "Homes loaded in this ZIP." }),
  },
  { additionalProperties: false },
);

export const ReferenceAddressCoverage = Type.Object(
  {
    zips: Type.Array(ZipCoverage, { description: "Every ZIP with homes loaded, in ZIP order." }),
    total_homes: Type.Integer({ description: "Homes loaded in those ZIPs." }),
  },
  { additionalProperties: false },
);
export type ReferenceAddressCoverage = Static<typeof ReferenceAddressCoverage>;

export const AreaCoverage = Type.Object(
  {
    zip: Type.String(),
    homes_loaded: Type.Integer({ description: "Reference homes loaded in the job's ZIP (0: none)." }),
  },
  { additionalProperties: false, description: "Whether neighbour addresses are loaded in the job's ZIP." },
);
export type AreaCoverage = Static<typeof AreaCoverage>;

export async function referenceAddressCoverage(db: Queryable): Promise<ReferenceAddressCoverage> {
  const rows = await queryRows<{ zip: string; homes: number | string }>(
    db,
    sql`SELECT zip, homes FROM reference_address_zips WHERE homes > 0 ORDER BY zip`,
  );
  const zips = rows.map((row) => {
    const place = zipPlaces.lookup(row.zip);
    return { zip: row.zip, city: place?.city ?? null, state: place?.state ?? null, homes: Number(row.homes) };
  });
  return { zips, total_homes: zips.reduce((sum, zip) => sum + zip.homes, 0) };
}

/** The job's ZIP and how many homes are loaded in it; undefined without a 5-digit ZIP. */
export async function areaCoverage(
  db: Queryable,
  zip: string | undefined,
): Promise<AreaCoverage | undefined> {
  const five = zip?.trim().slice(0, 5);
  if (!five || !/^\d{5}$/.test(five)) return undefined;
  const [row] = await queryRows<{ homes: number | string }>(
    db,
    sql`SELECT homes FROM reference_address_zips WHERE zip = ${five}`,
  );
  return { zip: five, homes_loaded: Number(row?.homes ?? 0) };
}
