import createClient from "openapi-fetch";
import { ApiError } from "./errors.ts";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];

/** The one client of the app API: same-origin cookie session, typed by the generated schema. */
export const client = createClient<paths>({ baseUrl: window.location.origin, credentials: "same-origin" });

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** A call's data, or the app API's refusal as an ApiError (so queries and mutations fail the same way). */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw ApiError.from(response.status, error);
  return data as T;
}
