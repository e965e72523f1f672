import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";
import { earlyReadOr } from "./early-reads.ts";
import { ApiError } from "./errors.ts";

const ORGANIZATION = "/app/api/v1/organization";

export type Organization = ResponseOf<"/app/api/v1/organization", "get">;
export type OrganizationPatch = BodyOf<"/app/api/v1/organization", "patch">;
export type Role = ResponseOf<"/app/api/v1/team", "get">["members"][number]["role"];

export const organizationKeys = {
  all: ["organization"] as const,
  profile: () => [...organizationKeys.all, "profile"] as const,
  team: () => [...organizationKeys.all, "team"] as const,
};

export const organizationQuery = () =>
  queryOptions({
    queryKey: organizationKeys.profile(),
    queryFn: () => unwrap(earlyReadOr(ORGANIZATION, () => client.GET(ORGANIZATION))),
    // It changes through Settings, which refreshes it: the copy read with the session serves the header
    // of the screens that follow instead of being read again as each one mounts.
    staleTime: 60_000,
  });

/**
 * The name the business goes by in the app: the business name set in Settings (the one its cards
 * print, orgs/card-sender.ts), else the organization's name.
 */
export const businessNameOf = (organization: Pick<Organization, "name" | "business_name">) =>
  organization.business_name?.trim() || organization.name;

export const teamQuery = () =>
  queryOptions({ queryKey: organizationKeys.team(), queryFn: () => unwrap(client.GET("/app/api/v1/team")) });

export const LOGO_URL = "/app/api/v1/organization/logo";
/** The server's limit (LOGO_MAX_BYTES): a larger file is refused before it is sent. */
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"];

export function useUpdateOrganization() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: OrganizationPatch) => unwrap(client.PATCH("/app/api/v1/organization", { body })),
    // The profile form says a refusal on its fields, and any other failure itself (ProfileForm).
    meta: { quiet: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all }),
  });
}

/** The logo goes up as the file itself (the server checks, limits and re-encodes it). */
export function useUploadLogo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const response = await fetch(LOGO_URL, {
        method: "PUT",
        credentials: "same-origin",
        headers: { "content-type": file.type || "application/octet-stream" },
        body: file,
      });
      if (!response.ok) throw ApiError.from(response.status, await response.json().catch(() => null));
    },
    // The logo field shows what went wrong.
    meta: { quiet: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all }),
  });
}

/** Removes the logo; the dialog that asked shows a failure itself. */
export function useRemoveLogo() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(client.DELETE("/app/api/v1/organization/logo")),
    meta: { quiet: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all }),
  });
}

export function useInviteTeammate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; role: Role }) =>
      unwrap(client.POST("/app/api/v1/team/invitations", { body })),
    // The invite form says a refusal on its Email field and any other failure under the form: a
    // toast would say it a second time.
    meta: { quiet: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.team() }),
  });
}

export function useCancelInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(client.DELETE("/app/api/v1/team/invitations/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.team() }),
  });
}

export function useChangeRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) =>
      unwrap(client.PATCH("/app/api/v1/team/members/{id}", { params: { path: { id } }, body: { role } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.team() }),
  });
}

/** Removed from a dialog that shows its failure itself: no toast repeats it. */
export function useRemoveTeammate() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (id: string) =>
      unwrap(client.DELETE("/app/api/v1/team/members/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.team() }),
  });
}
