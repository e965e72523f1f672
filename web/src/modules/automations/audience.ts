import type { Automation } from "../../api/automations.ts";

/** Who an automation mails, as the builder edits it. The server holds the rule; these bounds only guide typing. */
export type AudienceFormValues = {
  audience: "home" | "neighbours";
  neighbour_count: number | string;
  neighbour_radius_m: number | string;
};

export const NEIGHBOUR_COUNT = { default: 20, min: 1, max: 200 } as const;
export const NEIGHBOUR_RADIUS_M = { default: 400, min: 10, max: 5000 } as const;

export const AUDIENCE_CHOICES = [
  { value: "home", label: "The record's home" },
  { value: "neighbours", label: "Neighbours of the record's home" },
] as const;

export const blankAudience = (): AudienceFormValues => ({
  audience: "home",
  neighbour_count: NEIGHBOUR_COUNT.default,
  neighbour_radius_m: NEIGHBOUR_RADIUS_M.default,
});

export function audienceValuesOf(audience: Automation["audience"]): AudienceFormValues {
  return audience.type === "neighbours"
    ? { audience: "neighbours", neighbour_count: audience.count, neighbour_radius_m: audience.radius_m }
    : blankAudience();
}

export function audienceOf(values: AudienceFormValues): Automation["audience"] {
  return values.audience === "neighbours"
    ? {
        type: "neighbours",
        count: Number(values.neighbour_count),
        radius_m: Number(values.neighbour_radius_m),
      }
    : { type: "home" };
}

const wholeBetween = (value: number | string, min: number, max: number) => {
  const number = Number(value);
  return value !== "" && Number.isInteger(number) && number >= min && number <= max;
};

export function validateAudience(values: AudienceFormValues): Record<string, string> {
  if (values.audience !== "neighbours") return {};
  const errors: Record<string, string> = {};
  if (!wholeBetween(values.neighbour_count, NEIGHBOUR_COUNT.min, NEIGHBOUR_COUNT.max))
    errors.neighbour_count = `Enter a whole number from ${NEIGHBOUR_COUNT.min} to ${NEIGHBOUR_COUNT.max}`;
  if (!wholeBetween(values.neighbour_radius_m, NEIGHBOUR_RADIUS_M.min, NEIGHBOUR_RADIUS_M.max))
    errors.neighbour_radius_m = `Enter metres from ${NEIGHBOUR_RADIUS_M.min} to ${NEIGHBOUR_RADIUS_M.max}`;
  return errors;
}

/** The server names the audience's fields by their place in the saved shape. */
export const audienceFieldOf = (serverField: string) =>
  serverField
    .replace(/^audience\.count$/, "neighbour_count")
    .replace(/^audience\.radius_m$/, "neighbour_radius_m");

/** The neighbour card's default text (the server's too): the job's street and city, never a name or house number. */
export const NEIGHBOUR_TEMPLATE = {
  headline: "We just finished a job on {{job_street}}",
  message:
    "Hello neighbor, we just finished a job on {{job_street}}. While our crew is nearby, we would be glad to look at your home too.",
} as const;
