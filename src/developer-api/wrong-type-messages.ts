import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifySchemaValidationError } from "fastify";
import { invalidPayload } from "../errors.ts";
import { describeValidationError, jsonPointerToPath } from "../http/validation-detail.ts";

const TYPE_NOUNS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
};

const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;

/** The subschema a JSON pointer (`#/properties/deal_amount/anyOf/1`) names, if any. */
function schemaAt(root: unknown, pointer: string): Record<string, unknown> | undefined {
  let current = root;
  for (const segment of pointer.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return current !== null && typeof current === "object" ? (current as Record<string, unknown>) : undefined;
}

/**
 * "a number or a numeric string" when the value at the issues' deepest path failed on its JSON
 * type alone, in every branch that reached it; undefined when a branch took the type and failed
 * inside it (the shared detail names that failure). A branch's `title` names it where its type
 * says too little; null branches are left out (null is the absent field).
 */
function acceptedTypes(body: TSchema, issues: FastifySchemaValidationError[]) {
  const deepest = issues.reduce(
    (path, issue) => (issue.instancePath.length > path.length ? issue.instancePath : path),
    "",
  );
  const here = issues.filter((issue) => issue.instancePath === deepest && issue.keyword !== "anyOf");
  if (here.length === 0 || here.some((issue) => issue.keyword !== "type")) return undefined;
  const nouns = new Set<string>();
  for (const issue of here) {
    if (issue.params.type === "null") continue;
    const title = schemaAt(body, issue.schemaPath.replace(/\/type$/, ""))?.title;
    const noun = typeof title === "string" ? withArticle(title) : TYPE_NOUNS[String(issue.params.type)];
    if (noun) nouns.add(noun);
  }
  if (nouns.size === 0) return undefined;
  const list = [...nouns];
  const last = list.pop()!;
  return {
    path: jsonPointerToPath(deepest),
    accepted: list.length > 0 ? `${list.join(", ")} or ${last}` : last,
  };
}

/**
 * The attribution routes' `schemaErrorFormatter`: a field of the wrong type names every type it
 * accepts (`deal_amount: must be a number or a numeric string`), where ajv reports a union branch
 * by branch and the shared detail quotes the first (`must be number`). Anything else is the
 * shared detail.
 */
export const attributionSchemaErrors =
  (body: TSchema) =>
  (issues: FastifySchemaValidationError[], context: string): Error => {
    const wrongType = context === "body" ? acceptedTypes(body, issues) : undefined;
    return invalidPayload(
      wrongType
        ? `${wrongType.path || context}: must be ${wrongType.accepted}`
        : describeValidationError(issues, context),
    );
  };
