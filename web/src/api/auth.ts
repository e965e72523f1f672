import { createAuthClient } from "better-auth/react";
import { ApiError } from "./errors.ts";

/** Better Auth, mounted by the service under the app API: sign-in, sign-out, password reset. */
export const authClient = createAuthClient({ baseURL: window.location.origin, basePath: "/app/api/v1/auth" });

type AuthAnswer = {
  error: { status?: number; code?: string; message?: string; error?: unknown } | null;
};

/**
 * Better Auth answers {data, error}; a refusal becomes the app's one error type. The service's own
 * refusals on these routes (its limits, a password guessed first) carry the app API's error body,
 * which the client spreads into `error`: read as the app API's, with its fields.
 */
export async function authCall(call: Promise<AuthAnswer>): Promise<void> {
  const { error } = await call;
  if (!error) return;
  if (error.error && typeof error.error === "object") throw ApiError.from(error.status ?? 400, error);
  throw new ApiError(
    error.status ?? 400,
    error.code ?? "auth_error",
    error.message ?? "The request was refused",
  );
}
