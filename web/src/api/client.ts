import createClient from "openapi-fetch";
import { ApiError } from "./errors.ts";
import type { paths } from "./schema.d.ts";

/** The app API as generated from its OpenAPI document (`npm run app:client`). */
export type Paths = paths;

type JsonOf<Response> = Response extends { content: { "application/json": infer Body } } ? Body : never;
type Operation<P extends keyof Paths, M extends keyof Paths[P]> = Paths[P][M];

/** What a route answers on success (200, 201, or 202 for work it has queued). */
export type ResponseOf<P extends keyof Paths, M extends keyof Paths[P]> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: infer Ok }
      ? JsonOf<Ok>
      : R extends { 201: infer Created }
        ? JsonOf<Created>
        : R extends { 202: infer Accepted }
          ? JsonOf<Accepted>
          : never
    : never;

/** What a route takes as its JSON body. */
export type BodyOf<P extends keyof Paths, M extends keyof Paths[P]> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The one client of the app API: same-origin cookie session, typed by the generated schema. */
export const client = createClient<Paths>({ baseUrl: window.location.origin, credentials: "same-origin" });

export type Answer<T> = { data?: T; error?: unknown; response: Response };

/** A call's data, or the app API's refusal as an ApiError (so queries and mutations fail the same way). */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw ApiError.from(response.status, error);
  return data as T;
}
