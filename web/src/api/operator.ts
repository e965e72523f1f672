import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "./errors.ts";

/**
 * The operator console calls the operator API (/admin/v1) with the operator token. The token lives in
 * sessionStorage only: it is gone when the tab closes and never shared with other tabs.
 */
const TOKEN_KEY = "porchlight.operator-token";

export const operatorToken = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

const tokenRefusedListeners = new Set<() => void>();

/**
 * Calls `listener` whenever the server refuses the kept token (changed on the server, or edited in
 * the tab): the console signs out, whichever request found out. Answers the unsubscribe.
 */
export function onOperatorTokenRefused(listener: () => void): () => void {
  tokenRefusedListeners.add(listener);
  return () => tokenRefusedListeners.delete(listener);
}

/** A 401 to a request made with the kept token (not a token being checked at sign-in) signs out. */
function noteRefusal(status: number, checkingToken: boolean) {
  if (status !== 401 || checkingToken) return;
  for (const listener of tokenRefusedListeners) listener();
}

/** Every operator mutation's meta: a refused token signs the console out, which says why, so no toast too. */
const SIGNS_OUT_ON_REFUSAL = { signsInOnSessionEnd: true } as const;

async function operatorFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
) {
  const token = init.token ?? operatorToken.get() ?? "";
  const response = await fetch(`/admin/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  noteRefusal(response.status, init.token !== undefined);
  if (!response.ok) throw ApiError.from(response.status, body);
  return body as T;
}

export type OperatorOrg = { org_id: string; org_name: string; created_at?: string };
export type FailedJob = {
  id: string;
  org_id: string | null;
  kind: string;
  attempts: number;
  last_error: string | null;
  updated_at: string;
};
export type OperatorInvitation = { invitation_id: string; invite_url: string; expires_at: string };

export type OperatorApiKey = {
  id: string;
  name: string;
  scopes: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  demo: boolean;
};
export type IssuedApiKey = { id: string; key: string; scopes: string[] | null; expires_at: string | null };

export const operatorKeys = {
  all: ["operator"] as const,
  orgs: () => [...operatorKeys.all, "orgs"] as const,
  orgApiKeys: (orgId: string) => [...operatorKeys.all, "org-api-keys", orgId] as const,
  killSwitch: () => [...operatorKeys.all, "kill-switch"] as const,
  failedJobs: () => [...operatorKeys.all, "failed-jobs"] as const,
};

/** Checks a token before keeping it: the kill switch is the cheapest call that needs it. */
export async function checkOperatorToken(token: string): Promise<void> {
  await operatorFetch("/kill-switch", { token });
}

export const operatorOrgsQuery = () =>
  queryOptions({
    queryKey: operatorKeys.orgs(),
    queryFn: async () => {
      const answer = await operatorFetch<
        { orgs?: OperatorOrg[]; organizations?: OperatorOrg[] } | OperatorOrg[]
      >("/orgs");
      return Array.isArray(answer) ? answer : (answer.orgs ?? answer.organizations ?? []);
    },
    retry: false,
  });

export const killSwitchQuery = () =>
  queryOptions({
    queryKey: operatorKeys.killSwitch(),
    queryFn: () => operatorFetch<{ paused: boolean }>("/kill-switch"),
  });

export const failedJobsQuery = () =>
  queryOptions({
    queryKey: operatorKeys.failedJobs(),
    queryFn: async () => (await operatorFetch<{ jobs: FailedJob[] }>("/jobs?status=failed&limit=50")).jobs,
  });

export function useCreateOrg() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: (name: string) => operatorFetch<OperatorOrg>("/orgs", { method: "POST", body: { name } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: operatorKeys.orgs() }),
  });
}

export function useInviteOwner() {
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: ({ orgId, email }: { orgId: string; email: string }) =>
      operatorFetch<OperatorInvitation>(`/orgs/${encodeURIComponent(orgId)}/invitations`, {
        method: "POST",
        body: { email, role: "owner" },
      }),
  });
}

/** An organization's live API keys, newest first (never the keys themselves). */
export const orgApiKeysQuery = (orgId: string) =>
  queryOptions({
    queryKey: operatorKeys.orgApiKeys(orgId),
    queryFn: async () =>
      (await operatorFetch<{ keys: OperatorApiKey[] }>(`/orgs/${encodeURIComponent(orgId)}/keys`)).keys,
  });

export function useIssueOrgApiKey(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: (body: { name: string; scopes: string[]; expires_at?: string }) =>
      operatorFetch<IssuedApiKey>(`/orgs/${encodeURIComponent(orgId)}/keys`, { method: "POST", body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: operatorKeys.orgApiKeys(orgId) }),
  });
}

export function useRevokeOrgApiKey(orgId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: (keyId: string) =>
      operatorFetch<null>(`/keys/${encodeURIComponent(keyId)}`, { method: "DELETE" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: operatorKeys.orgApiKeys(orgId) }),
  });
}

export function useSetKillSwitch() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: (paused: boolean) =>
      operatorFetch<{ paused: boolean }>("/kill-switch", { method: "PUT", body: { paused } }),
    onSuccess: (answer) => queryClient.setQueryData(operatorKeys.killSwitch(), answer),
  });
}

export type BackupFile = { file: string; bytes: number; sha256: string | null; created_at: string };
export type BackupListing = {
  backups: BackupFile[];
  last_failure: { at: string; reason: string; scheduled: boolean } | null;
  schedule: { interval_hours: number; keep: number; next_at: string | null };
};

const backupsKey = [...operatorKeys.all, "backups"] as const;

/** The embedded database's backups; on PostgreSQL the API answers 409 (pg_dump is the tool there). */
export const backupsQuery = () =>
  queryOptions({
    queryKey: backupsKey,
    queryFn: () => operatorFetch<BackupListing>("/backups"),
    retry: false,
  });

export function useCreateBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: () => operatorFetch<BackupFile>("/backups", { method: "POST" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: backupsKey }),
  });
}

/** One upload of neighbour addresses and its progress (GET /admin/v1/reference-addresses/uploads). */
export type ReferenceAddressUpload = {
  upload_id: string;
  status: "running" | "done" | "failed";
  format: "csv" | "geojson" | null;
  bytes_received: number;
  rows_read: number;
  rows_added: number;
  rows_present: number;
  rows_rejected: number;
  rejected_by_reason: Record<string, number>;
  error?: string;
  created_at: string;
  finished_at: string | null;
};

const uploadsKey = [...operatorKeys.all, "reference-address-uploads"] as const;

/** The newest uploads, polled every second while one is running. */
export const referenceAddressUploadsQuery = () =>
  queryOptions({
    queryKey: uploadsKey,
    queryFn: async () =>
      (await operatorFetch<{ uploads: ReferenceAddressUpload[] }>("/reference-addresses/uploads")).uploads,
    refetchInterval: (query) =>
      query.state.data?.some((upload) => upload.status === "running") ? 1000 : false,
  });

/** The Content-Type a file's name implies; the server also recognises gzip and GeoJSON by their first bytes. */
function contentTypeOf(file: File): string {
  const name = file.name.toLowerCase();
  if (name.endsWith(".gz")) return "application/gzip";
  if (name.endsWith(".csv")) return "text/csv";
  if (/\.(geojson|geojsonl|geojsons|jsonl|ndjson)$/.test(name)) return "application/geo+json-seq";
  return file.type || "application/octet-stream";
}

/** Sends the file itself as the body: the browser streams it from disk. */
export function useUploadReferenceAddresses() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: SIGNS_OUT_ON_REFUSAL,
    mutationFn: async (file: File) => {
      const response = await fetch("/admin/v1/reference-addresses", {
        method: "POST",
        headers: {
          authorization: `Bearer ${operatorToken.get() ?? ""}`,
          "content-type": contentTypeOf(file),
        },
        body: file,
      });
      const body = await response.json().catch(() => null);
      noteRefusal(response.status, false);
      if (!response.ok) throw ApiError.from(response.status, body);
      return body as { upload_id: string };
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: uploadsKey }),
  });
}
