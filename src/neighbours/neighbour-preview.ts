/**
 * A neighbour automation's dry run ("Test with a sample"): which homes around the sample's home
 * would be mailed, how many were passed over and why, and the points to draw them on a map. It
 * runs the fan-out's own choice (chooseNeighbours) and writes nothing.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import type { Queryable } from "../db/database.ts";
import type { NeighboursAudience } from "./audience.ts";
import { jobCityOf, jobStreetOf } from "./audience.ts";
import { chooseNeighbours, locateRecordHome } from "./neighbour-fanout.ts";

const Point = { latitude: Type.Number(), longitude: Type.Number() };

export const NeighbourPreview = Type.Object(
  {
    count: Type.Integer({ description: "The audience's K." }),
    radius_m: Type.Integer({ description: "The audience's R, in metres." }),
    job: Type.Object(
      {
        ...Point,
        street: Type.Union([Type.String(), Type.Null()], { description: "Without a house number." }),
      },
      { additionalProperties: false },
    ),
    homes_mailed: Type.Integer(),
    homes: Type.Array(
      Type.Object(
        { ...Point, address: Type.String(), distance_m: Type.Number() },
        { additionalProperties: false },
      ),
      { description: "The homes that would be mailed, nearest first." },
    ),
    excluded: Type.Object(
      {
        own_home: Type.Integer({ description: "The job's own home (always left out)." }),
        customers: Type.Integer(),
        opted_out: Type.Integer({ description: "Homes on the do-not-mail list." }),
        recently_mailed: Type.Integer({ description: "Mailed within the frequency window." }),
      },
      { additionalProperties: false },
    ),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: "Why no home would be mailed, when none would.",
    }),
  },
  { additionalProperties: false },
);
export type NeighbourPreview = Static<typeof NeighbourPreview>;

/** The preview around the record's home; undefined when the home is not among the reference addresses. */
export async function previewNeighbours(
  db: Queryable,
  input: {
    orgId: string;
    addressLine: string;
    street: string | null;
    audience: NeighboursAudience;
    now: Date;
  },
): Promise<NeighbourPreview | undefined> {
  const home = await locateRecordHome(db, input.addressLine);
  if (!home) return undefined;
  const choice = await chooseNeighbours(db, {
    orgId: input.orgId,
    homeKey: home.normalizedAddress,
    latitude: home.latitude,
    longitude: home.longitude,
    audience: input.audience,
    now: input.now,
  });
  return {
    count: input.audience.count,
    radius_m: input.audience.radius_m,
    job: {
      latitude: home.latitude,
      longitude: home.longitude,
      street: input.street ? jobStreetOf(input.street) : null,
    },
    homes_mailed: choice.chosen.length,
    homes: choice.chosen.map((chosen) => ({
      latitude: chosen.latitude,
      longitude: chosen.longitude,
      address: chosen.street,
      distance_m: Math.round(chosen.distanceM),
    })),
    excluded: {
      own_home: 1,
      customers: choice.excludedCustomers,
      opted_out: choice.excludedOptedOut,
      recently_mailed: choice.excludedRecentlyMailed,
    },
    reason: choice.reason,
  };
}

/**
 * The record as a neighbour's card sees it, for the builder's proof and test: the job's street
 * (no house number) and city only; no name, and no street line, so the proof's address block is
 * a stand-in neighbour rather than the customer's home.
 */
export function neighbourCardProperties(properties: Record<string, string>): Record<string, string> {
  return {
    job_street: jobStreetOf(properties.street ?? "") ?? "",
    job_city: jobCityOf(properties.city) ?? "",
  };
}
