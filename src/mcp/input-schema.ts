import type { TSchema } from "@fastify/type-provider-typebox";

/** A tool's `inputSchema`: a plain JSON Schema object, as the tool protocol publishes it. */
export interface ToolInputSchema {
  type: "object";
  properties?: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/**
 * Publishes an endpoint's TypeBox request schema as a tool input schema. The JSON round trip
 * keeps only the JSON Schema keywords (TypeBox's own markers are not enumerable), and `$id`s are
 * dropped so every tool schema stands alone: an `$id` names a schema inside our OpenAPI document,
 * which a tool-protocol client never sees.
 */
export function toToolInputSchema(schema: TSchema): ToolInputSchema {
  const plain = JSON.parse(JSON.stringify(schema), (key, value) => (key === "$id" ? undefined : value));
  if (plain?.type !== "object") throw new Error("a tool input schema must describe a JSON object");
  return plain as ToolInputSchema;
}

/** Adds (or replaces) properties of an object schema, e.g. a header the tool takes as an argument. */
export function withProperties(schema: ToolInputSchema, properties: Record<string, object>): ToolInputSchema {
  return { ...schema, properties: { ...schema.properties, ...properties } };
}
