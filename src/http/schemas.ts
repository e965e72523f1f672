import { Type } from "@fastify/type-provider-typebox";

/** Error body of every endpoint (spec: Errors). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "Machine code or, on older endpoints, a sentence." }),
    detail: Type.Optional(
      Type.String({ description: "What was wrong, naming the field where there is one." }),
    ),
  },
  { title: "Error" },
);

/**
 * The pattern of a whole number from 1 to `max`, for `max` one digit then zeros (500, 1000): query
 * values are strings, so the range is refused by validation (422), never clamped by a handler.
 */
function oneToPattern(max: number): string {
  const match = /^([1-9])(0*)$/.exec(String(max));
  if (!match) throw new Error(`oneToPattern: ${max} is not a digit followed by zeros`);
  const lead = Number(match[1]);
  const zeros = match[2]!.length;
  if (zeros === 0) return `^[1-${lead}]$`;
  const below = [`[1-9]\\d{0,${zeros - 1}}`];
  if (lead > 1) below.push(`[1-${lead - 1}]\\d{${zeros}}`);
  return `^(?:${below.join("|")}|${max})$`;
}

const rangeSentences = new Map<string, string>();

/** The sentence a failed `LimitParam` pattern reads as, for validation-detail.ts. */
export const rangeSentence = (pattern: unknown): string | undefined =>
  typeof pattern === "string" ? rangeSentences.get(pattern) : undefined;

/** An optional `?limit=`: a whole number from 1 to `max`; anything else is a 422 naming it. */
export function LimitParam(max: number, defaultLimit = 100) {
  const pattern = oneToPattern(max);
  rangeSentences.set(pattern, `must be a whole number from 1 to ${max}`);
  return Type.Optional(Type.String({ pattern, description: `1–${max}, default ${defaultLimit}` }));
}
