import { NOT_ONE_LINE, ONE_LINE_PATTERN } from "../domain/one-line-text.ts";
import { rangeSentence } from "./schemas.ts";

/** The subset of an ajv error that names the offending field. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set by ajv on the errors of a `propertyNames` subschema: the offending key. */
  propertyName?: string;
}

/** "/rows/3/address" → "rows[3].address". */
export function jsonPointerToPath(pointer: string): string {
  let path = "";
  for (const raw of pointer.split("/").slice(1)) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  }
  return path;
}

/** Fastify validates headers by their lower-case names; details use the usual spelling. */
function headerName(lowerCase: string): string {
  return lowerCase.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
}

function join(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

/**
 * The values a field may take: a union of literals fails as one `const` issue per branch (then
 * `anyOf`), an enum as one `enum` issue listing them all.
 */
function allowedValues(issues: ValidationIssue[], instancePath: string): string[] {
  const values: unknown[] = [];
  for (const issue of issues) {
    if (issue.instancePath !== instancePath) continue;
    if (issue.keyword === "const") values.push(issue.params.allowedValue);
    if (issue.keyword === "enum") values.push(...((issue.params.allowedValues as unknown[]) ?? []));
  }
  return values.map((value) => (typeof value === "string" ? value : JSON.stringify(value)));
}

/**
 * The issue that explains a failure. A value failing a union (`anyOf`) is reported per branch
 * first: when the first branch only says "must be string" but another branch accepted the type
 * and failed inside it (`{notes}` without its `address`), that branch's issue is the useful one.
 */
function explainingIssue(issues: ValidationIssue[]): ValidationIssue | undefined {
  const first = issues[0];
  if (first?.keyword !== "type") return first;
  const union = issues.findIndex((issue) => issue.keyword === "anyOf");
  if (union < 0) return first;
  const insideBranch = issues
    .slice(1, union)
    .find(
      (issue) =>
        issue.instancePath.startsWith(first.instancePath) &&
        (issue.keyword !== "type" || issue.instancePath.length > first.instancePath.length),
    );
  return insideBranch ?? first;
}

/**
 * A one-line detail that names the field, e.g. `record.properties.zipcode: property name is not
 * allowed (use a reserved key or the cf_ prefix)`.
 */
export function describeValidationError(issues: ValidationIssue[], context = "body"): string {
  const issue = explainingIssue(issues);
  if (!issue) return `${context} is invalid`;
  const path = jsonPointerToPath(issue.instancePath);
  const at = context === "headers" ? headerName(path) : path;
  const params = issue.params;
  const propertyName = issue.propertyName ?? params.propertyName;
  switch (issue.keyword) {
    case "const":
    case "enum":
      return `${at || context}: must be one of ${allowedValues(issues, issue.instancePath).join(", ")}`;
    case "required":
      return `${join(at, String(params.missingProperty))}: is required`;
    case "additionalProperties":
      if (context === "querystring" && !at) {
        return `query parameter ${String(params.additionalProperty)}: is not accepted by this endpoint`;
      }
      return `${join(at, String(params.additionalProperty))}: is not an allowed field`;
    case "propertyNames":
    case "pattern":
      if (params.pattern === ONE_LINE_PATTERN) return `${at || context}: ${NOT_ONE_LINE}`;
      if (rangeSentence(params.pattern)) return `${at || context}: ${rangeSentence(params.pattern)}`;
      if (propertyName !== undefined) {
        return `${join(at, String(propertyName))}: property name is not allowed (use a reserved key or the cf_ prefix, lowercase, at most 64 characters)`;
      }
      break;
  }
  if (propertyName !== undefined) return `${join(at, String(propertyName))}: property name is not allowed`;
  return `${at || context}: ${issue.message ?? "is invalid"}`;
}
