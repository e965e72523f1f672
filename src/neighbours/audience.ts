/**
 * Who an automation mails: the record's home (the default), or the neighbours of the record's
 * home, the `count` nearest reference addresses within `radius_m`. The limits, the frequency
 * window and the neighbour card's default text live here, once.
 */
import { type Static, Type } from "@fastify/type-provider-typebox";
import { parseLocation } from "../domain/address.ts";

export const NEIGHBOUR_COUNT = { default: 20, max: 200 } as const;
export const NEIGHBOUR_RADIUS_M = { default: 400, min: 10, max: 5000 } as const;

export const HomeAudience = Type.Object({ type: Type.Literal("home") }, { additionalProperties: false });

export const NeighboursAudienceInput = Type.Object(
  {
    type: Type.Literal("neighbours"),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: NEIGHBOUR_COUNT.max })),
    radius_m: Type.Optional(
      Type.Integer({ minimum: NEIGHBOUR_RADIUS_M.min, maximum: NEIGHBOUR_RADIUS_M.max }),
    ),
  },
  { additionalProperties: false },
);

export const AudienceInput = Type.Union([HomeAudience, NeighboursAudienceInput]);
export type AudienceInput = Static<typeof AudienceInput>;

export interface NeighboursAudience {
  type: "neighbours";
  count: number;
  radius_m: number;
}
export type Audience = { type: "home" } | NeighboursAudience;

export const HOME_AUDIENCE: Audience = { type: "home" };

/** The audience with its defaults filled in (what is stored and answered). */
export function resolveAudience(input: AudienceInput | null | undefined): Audience {
  if (!input || input.type === "home") return HOME_AUDIENCE;
  return {
    type: "neighbours",
    count: input.count ?? NEIGHBOUR_COUNT.default,
    radius_m: input.radius_m ?? NEIGHBOUR_RADIUS_M.default,
  };
}

/** The stored column: null for the home, the resolved object for neighbours. */
export const storedAudience = (input: AudienceInput): NeighboursAudience | null => {
  const audience = resolveAudience(input);
  return audience.type === "neighbours" ? audience : null;
};

export const isNeighbours = (audience: Audience | undefined): audience is NeighboursAudience =>
  audience?.type === "neighbours";

/**
 * The neighbour card's default: only the job's street and city (never the customer's name or
 * house number, which the neighbour card has no field for).
 */
export const NEIGHBOUR_DEFAULT_TEMPLATE = {
  headline: "We just finished a job on {{job_street}}",
  // Fits a 4×6 card with a logo, a two-line return address and a two-line offer (docs/card-design.md).
  message:
    "Hello neighbor, we just finished a job on {{job_street}}. While our crew is nearby, we would be glad to look at your home too.",
} as const;

/** The neighbour card's default before it was shortened to fit: stored on automations made then. */
export const FORMER_NEIGHBOUR_DEFAULT_TEMPLATE = {
  headline: "We just finished a job on {{job_street}}",
  message:
    "Hello neighbor, we just finished a project for one of your neighbors on {{job_street}} in {{job_city}}. " +
    "While our crew is nearby, we would be glad to take a look at your home too. Scan the code to reach us.",
} as const;

const titleCase = (text: string) =>
  text
    .toLowerCase()
    .replace(/\b([a-z])/g, (letter) => letter.toUpperCase())
    .replace(/\b(\d+)(St|Nd|Rd|Th)\b/g, (_, digits: string, suffix: string) => digits + suffix.toLowerCase());

/**
 * The street of the job without its house number or unit: "742 Evergreen Terrace Apt 4" →
 * "Evergreen Ter". Null when no street name can be told apart from the number.
 */
export function jobStreetOf(streetLine: string): string | null {
  const parsed = parseLocation(streetLine);
  if (!parsed?.number || !parsed.street) return null;
  return titleCase([parsed.prefix, parsed.street, parsed.type, parsed.suffix].filter(Boolean).join(" "));
}

export const jobCityOf = (city: string | undefined | null): string | null =>
  city?.trim() ? titleCase(city.trim()) : null;
