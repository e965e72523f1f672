import type { Automation } from "../../api/automations.ts";
import { feetFromMeters, metersFromFeet } from "../../ui/format.ts";
import { wholeNumberProblem } from "../../ui/number-rules.ts";

/**
 * Who an automation mails, as the builder edits it. The server holds the rule; these bounds only
 * guide typing. The radius is typed in feet (what a US contractor measures in) and saved in whole
 * meters, the API's unit.
 */
export type AudienceFormValues = {
  audience: "home" | "neighbours";
  neighbour_count: number | string;
  neighbour_radius_ft: number | string;
};

export const NEIGHBOUR_COUNT = { default: 20, min: 1, max: 200 } as const;
export const NEIGHBOUR_RADIUS_M = { default: 400, min: 10, max: 5000 } as const;
/** The same bounds in whole feet, inside the meters' bounds once rounded back. */
export const NEIGHBOUR_RADIUS_FT = {
  default: feetFromMeters(NEIGHBOUR_RADIUS_M.default),
  min: Math.ceil(feetFromMeters(NEIGHBOUR_RADIUS_M.min, false)),
  max: Math.floor(feetFromMeters(NEIGHBOUR_RADIUS_M.max, false)),
} as const;

export const AUDIENCE_CHOICES = [
  { value: "home", label: "The record's home" },
  { value: "neighbours", label: "Neighbors of the record's home" },
] as const;

export const blankAudience = (): AudienceFormValues => ({
  audience: "home",
  neighbour_count: NEIGHBOUR_COUNT.default,
  neighbour_radius_ft: NEIGHBOUR_RADIUS_FT.default,
});

export function audienceValuesOf(audience: Automation["audience"]): AudienceFormValues {
  return audience.type === "neighbours"
    ? {
        audience: "neighbours",
        neighbour_count: audience.count,
        neighbour_radius_ft: feetFromMeters(audience.radius_m),
      }
    : blankAudience();
}

export function audienceOf(values: AudienceFormValues): Automation["audience"] {
  return values.audience === "neighbours"
    ? {
        type: "neighbours",
        count: Number(values.neighbour_count),
        radius_m: metersFromFeet(Number(values.neighbour_radius_ft)),
      }
    : { type: "home" };
}

export const wholeBetween = (value: number | string, min: number, max: number) => {
  const number = Number(value);
  return value !== "" && Number.isInteger(number) && number >= min && number <= max;
};

export function validateAudience(values: AudienceFormValues): Record<string, string> {
  if (values.audience !== "neighbours") return {};
  const errors: Record<string, string> = {};
  const countProblem = wholeNumberProblem(values.neighbour_count, { ...NEIGHBOUR_COUNT, unit: "homes" });
  if (countProblem) errors.neighbour_count = countProblem;
  const radiusProblem = wholeNumberProblem(values.neighbour_radius_ft, {
    ...NEIGHBOUR_RADIUS_FT,
    unit: "feet",
    span: "a mile is 5,280 ft",
  });
  if (radiusProblem) errors.neighbour_radius_ft = radiusProblem;
  return errors;
}

/** The server names the audience's fields by their place in the saved shape. */
export const audienceFieldOf = (serverField: string) =>
  serverField
    .replace(/^audience\.count$/, "neighbour_count")
    .replace(/^audience\.radius_m$/, "neighbour_radius_ft");

/** The neighbour card's default text (the server's too): the job's street and city, never a name or house number. */
export const NEIGHBOUR_TEMPLATE = {
  headline: "We just finished a job on {{job_street}}",
  message:
    "Hello neighbor, we just finished a job on {{job_street}}. While our crew is nearby, we would be glad to look at your home too.",
} as const;
