import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { authCall, authClient } from "./auth.ts";
import { client, type ResponseOf, unwrap } from "./client.ts";
import { earlyReadOr } from "./early-reads.ts";

const SESSION = "/app/api/v1/session";

export const sessionKeys = {
  all: ["session"] as const,
  current: () => [...sessionKeys.all, "current"] as const,
  invitation: (token: string) => [...sessionKeys.all, "invitation", token] as const,
  passwordReset: (token: string) => [...sessionKeys.all, "password-reset", token] as const,
};

export type Session = ResponseOf<"/app/api/v1/session", "get">;
export type Invitation = ResponseOf<"/app/api/v1/invitations/{token}", "get">;

export const sessionQuery = () =>
  queryOptions({
    queryKey: sessionKeys.current(),
    queryFn: () => unwrap(earlyReadOr(SESSION, () => client.GET(SESSION))),
    staleTime: 60_000,
    retry: false,
  });

export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: sessionKeys.invitation(token),
    queryFn: () => unwrap(client.GET("/app/api/v1/invitations/{token}", { params: { path: { token } } })),
    retry: false,
  });

/** Whether a reset link can still be used (checked when its page opens; the link is not used up). */
export const passwordResetQuery = (token: string) =>
  queryOptions({
    queryKey: sessionKeys.passwordReset(token),
    queryFn: () => unwrap(client.GET("/app/api/v1/password-resets/{token}", { params: { path: { token } } })),
    retry: false,
    staleTime: 0,
  });

/** Everything cached belongs to the signed-in organization: a change of who is signed in drops it all. */
function useStartOver() {
  const queryClient = useQueryClient();
  return () => queryClient.clear();
}

export function useSignIn() {
  const startOver = useStartOver();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => authCall(authClient.signIn.email(body)),
    onSuccess: startOver,
    // The sign-in form says why beside its fields; a toast would say it twice.
    meta: { quiet: true },
  });
}

export function useSignOut() {
  const startOver = useStartOver();
  return useMutation({ mutationFn: () => authCall(authClient.signOut()), onSettled: startOver });
}

/** Ends every session of the signed-in person, this one included (a lost phone, a shared computer). */
export function useSignOutEverywhere() {
  const startOver = useStartOver();
  return useMutation({ mutationFn: () => authCall(authClient.revokeSessions()), onSuccess: startOver });
}

/** A new account for the invited email: name and password, then signed in. */
export function useAcceptInvitation(token: string) {
  const startOver = useStartOver();
  return useMutation({
    mutationFn: (body: { name: string; password: string }) =>
      unwrap(client.POST("/app/api/v1/invitations/{token}/accept", { params: { path: { token } }, body })),
    onSuccess: startOver,
    // The invitation page says why beside the form (or offers to sign in instead).
    meta: { quiet: true },
  });
}

/** The signed-in account (the invited email's) joins the invitation's organization. */
export function useJoinInvitation(token: string) {
  const startOver = useStartOver();
  return useMutation({
    mutationFn: () =>
      unwrap(client.POST("/app/api/v1/invitations/{token}/join", { params: { path: { token } }, body: {} })),
    onSuccess: startOver,
    meta: { quiet: true },
  });
}

export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: (email: string) =>
      authCall(
        authClient.requestPasswordReset({
          email,
          redirectTo: `${window.location.origin}/app/reset-password`,
        }),
      ),
  });
}

export function useResetPassword() {
  return useMutation({
    mutationFn: (body: { token: string; newPassword: string }) => authCall(authClient.resetPassword(body)),
  });
}

export function useUpdateMe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string }) => unwrap(client.PATCH("/app/api/v1/me", { body })),
    meta: { refusalsOnFields: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionKeys.all }),
  });
}

export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { current_password: string; new_password: string }) =>
      unwrap(client.POST("/app/api/v1/me/password", { body })),
    meta: { refusalsOnFields: true },
  });
}
