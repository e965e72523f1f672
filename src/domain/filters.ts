import { type Static, Type } from "@fastify/type-provider-typebox";

/** A CRM filter of an automation: a condition on one record property (all must pass). */
export const AutomationFilter = Type.Union(
  [
    Type.Object(
      {
        property: Type.String({ minLength: 1, maxLength: 64 }),
        op: Type.Union([Type.Literal("eq"), Type.Literal("neq"), Type.Literal("contains")]),
        value: Type.String({ maxLength: 2000 }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        property: Type.String({ minLength: 1, maxLength: 64 }),
        op: Type.Union([Type.Literal("in"), Type.Literal("not_in")]),
        value: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        property: Type.String({ minLength: 1, maxLength: 64 }),
        op: Type.Union([Type.Literal("exists"), Type.Literal("not_exists")]),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        property: Type.String({ minLength: 1, maxLength: 64 }),
        op: Type.Union([Type.Literal("gt"), Type.Literal("gte"), Type.Literal("lt"), Type.Literal("lte")]),
        value: Type.Number(),
      },
      { additionalProperties: false },
    ),
  ],
  { title: "AutomationFilter" },
);
export type AutomationFilter = Static<typeof AutomationFilter>;

/** A property's string read as a number; blank or non-numeric never compares. */
function asNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const parsed = Number(value.replace(/[$,\s]/g, ""));
  return Number.isFinite(parsed) ? parsed : undefined;
}

export function passesFilter(
  filter: AutomationFilter,
  properties: Readonly<Record<string, string>>,
): boolean {
  const actual = Object.hasOwn(properties, filter.property) ? properties[filter.property] : undefined;
  switch (filter.op) {
    case "exists":
      return actual !== undefined && actual.trim() !== "";
    case "not_exists":
      return actual === undefined || actual.trim() === "";
    case "eq":
      return actual === filter.value;
    case "neq":
      return actual !== filter.value;
    case "contains":
      return actual?.includes(filter.value) ?? false;
    case "in":
      return actual !== undefined && filter.value.includes(actual);
    case "not_in":
      return actual === undefined || !filter.value.includes(actual);
    default: {
      const number = asNumber(actual);
      if (number === undefined) return false;
      if (filter.op === "gt") return number > filter.value;
      if (filter.op === "gte") return number >= filter.value;
      if (filter.op === "lt") return number < filter.value;
      return number <= filter.value;
    }
  }
}

export function passesAllFilters(
  filters: readonly AutomationFilter[],
  properties: Readonly<Record<string, string>>,
): boolean {
  return filters.every((filter) => passesFilter(filter, properties));
}
