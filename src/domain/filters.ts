import { type Static, Type } from "@fastify/type-provider-typebox";

/** The filter ops by the value each takes: one list for the schema and for the error details. */
const OPS_BY_VALUE = {
  string: ["eq", "neq", "contains"],
  strings: ["in", "not_in"],
  none: ["exists", "not_exists"],
  number: ["gt", "gte", "lt", "lte"],
} as const;

/** One of `ops` (a union of literals; typed as the ops themselves, which a mapped union loses). */
const opOf = <Op extends string>(ops: readonly Op[]) =>
  Type.Unsafe<Op>(Type.Union(ops.map((op) => Type.Literal(op))));
const Property = Type.String({ minLength: 1, maxLength: 64 });

/** A CRM filter of an automation: a condition on one record property (all must pass). */
export const AutomationFilter = Type.Union(
  [
    Type.Object(
      { property: Property, op: opOf(OPS_BY_VALUE.string), value: Type.String({ maxLength: 2000 }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        property: Property,
        op: opOf(OPS_BY_VALUE.strings),
        value: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 }),
      },
      { additionalProperties: false },
    ),
    Type.Object({ property: Property, op: opOf(OPS_BY_VALUE.none) }, { additionalProperties: false }),
    Type.Object(
      { property: Property, op: opOf(OPS_BY_VALUE.number), value: Type.Number() },
      { additionalProperties: false },
    ),
  ],
  { title: "AutomationFilter" },
);
export type AutomationFilter = Static<typeof AutomationFilter>;

type ValueKind = keyof typeof OPS_BY_VALUE;
const VALUE_BY_OP = new Map<string, ValueKind>(
  (Object.keys(OPS_BY_VALUE) as ValueKind[]).flatMap((kind) =>
    OPS_BY_VALUE[kind].map((op) => [op, kind] as const),
  ),
);

/**
 * What is wrong with the first filter whose `op` is unknown or whose `value` does not fit its op,
 * named by its path. A schema union alone reports against one of its branches: an unknown op read
 * "filters[0].value: is required", a string for `in` "op: must be one of eq, neq, contains".
 */
export function filterProblem(filters: unknown): string | undefined {
  if (!Array.isArray(filters)) return undefined;
  for (const [index, filter] of filters.entries()) {
    if (filter === null || typeof filter !== "object") continue;
    const { op, value } = filter as { op?: unknown; value?: unknown };
    const at = `filters[${index}]`;
    const expected = typeof op === "string" ? VALUE_BY_OP.get(op) : undefined;
    if (!expected) return `${at}.op: must be one of ${[...VALUE_BY_OP.keys()].join(", ")}`;
    if (expected === "none" && value !== undefined) return `${at}.value: must not be sent with op ${op}`;
    if (expected === "string" && typeof value !== "string")
      return `${at}.value: must be a string with op ${op}`;
    if (expected === "number" && typeof value !== "number")
      return `${at}.value: must be a number with op ${op}`;
    if (expected === "strings" && !(Array.isArray(value) && value.every((item) => typeof item === "string")))
      return `${at}.value: must be an array of strings with op ${op}`;
  }
  return undefined;
}

/** A property's string read as a number; blank or non-numeric never compares. */
function asNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const parsed = Number(value.replace(/[$,\s]/g, ""));
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Text as a filter compares it: any case, spaces around ignored. A CRM sends "Won" or " won " where
 * the contractor typed "won" in the builder, and an exact match mailed nothing, silently
 * (developer walk, 2026-12-07); past jobs' job types compare the same way (reactivation).
 */
const folded = (text: string) => text.trim().toLowerCase();

export function passesFilter(
  filter: AutomationFilter,
  properties: Readonly<Record<string, string>>,
): boolean {
  const actual = Object.hasOwn(properties, filter.property) ? properties[filter.property] : undefined;
  const text = actual === undefined ? undefined : folded(actual);
  switch (filter.op) {
    case "exists":
      return text !== undefined && text !== "";
    case "not_exists":
      return text === undefined || text === "";
    case "eq":
      return text === folded(filter.value);
    case "neq":
      return text !== folded(filter.value);
    case "contains":
      return text?.includes(folded(filter.value)) ?? false;
    case "in":
      return text !== undefined && filter.value.some((value) => folded(value) === text);
    case "not_in":
      return text === undefined || !filter.value.some((value) => folded(value) === text);
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
