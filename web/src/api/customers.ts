import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";
import { mailKeys } from "./mail.ts";
import { useInvalidateSafety } from "./mail-safety.ts";

export type CustomerPage = ResponseOf<"/app/api/v1/customers", "get">;
export type Customer = CustomerPage["customers"][number];
/** Customers, then opted-out homes, as CSV (streamed; the session cookie authorizes it). */
export const DO_NOT_MAIL_CSV_URL = "/app/api/v1/customers/do-not-mail.csv";

export type OptedOutHome = ResponseOf<"/app/api/v1/customers/opted-out", "get">["homes"][number];
export type CsvPreview = ResponseOf<"/app/api/v1/uploads/preview", "post">;
export type UploadPurpose = "customers" | "jobs";
export type ImportBatch = ResponseOf<"/app/api/v1/imports", "get">["imports"][number];
export type ImportBatchDetail = ResponseOf<"/app/api/v1/imports/{id}", "get">;
export type ReactivationSelection = BodyOf<"/app/api/v1/reactivation/preview", "post">;
export type ReactivationSummary = ResponseOf<"/app/api/v1/reactivation/preview", "post">;
export type ReactivationMailing = BodyOf<"/app/api/v1/reactivation/mailings", "post">;
export type ReactivationProof = ResponseOf<"/app/api/v1/reactivation/proof", "post">;

/**
 * A request id, made once per form (a mailing, an uploaded file) so a double click or a retry
 * mails or adds nothing twice.
 * A UUID from getRandomValues: randomUUID exists only on https or localhost pages.
 */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
export type CardTemplateInput = ReactivationMailing["template"];
export type JobTypeCounts = ResponseOf<"/app/api/v1/imports/job-types", "get">;

/** Every key of the domain extends this root, so a change invalidates the whole domain. */
export const customerKeys = {
  all: ["customers"] as const,
  list: (q: string) => [...customerKeys.all, "list", q] as const,
  optedOut: (q: string) => [...customerKeys.all, "opted-out", q] as const,
  imports: () => [...customerKeys.all, "imports"] as const,
  importBatch: (id: string) => [...customerKeys.all, "imports", id] as const,
  jobTypes: (importIds: readonly string[]) => [...customerKeys.all, "job-types", ...importIds] as const,
  reactivation: (selection: ReactivationSelection) =>
    [...customerKeys.all, "reactivation", selection] as const,
  proof: (input: unknown) => [...customerKeys.all, "reactivation-proof", input] as const,
};

export const customersQuery = (q: string) =>
  infiniteQueryOptions({
    queryKey: customerKeys.list(q),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.GET("/app/api/v1/customers", {
          params: { query: { ...(q ? { q } : {}), ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });

export const optedOutQuery = (q: string) =>
  queryOptions({
    queryKey: customerKeys.optedOut(q),
    queryFn: () =>
      unwrap(client.GET("/app/api/v1/customers/opted-out", { params: { query: q ? { q } : {} } })),
  });

export const importsQuery = () =>
  queryOptions({
    queryKey: customerKeys.imports(),
    queryFn: () => unwrap(client.GET("/app/api/v1/imports")),
  });

export const importBatchQuery = (id: string) =>
  queryOptions({
    queryKey: customerKeys.importBatch(id),
    queryFn: () => unwrap(client.GET("/app/api/v1/imports/{id}", { params: { path: { id } } })),
  });

/** The job types in these batches with their row counts (the mailing's job type filter offers them). */
export const importJobTypesQuery = (importIds: readonly string[]) =>
  queryOptions({
    queryKey: customerKeys.jobTypes(importIds),
    queryFn: () =>
      unwrap(
        client.GET("/app/api/v1/imports/job-types", {
          params: { query: { import_ids: importIds.join(",") } },
        }),
      ),
  });

export const reactivationPreviewQuery = (selection: ReactivationSelection) =>
  queryOptions({
    queryKey: customerKeys.reactivation(selection),
    queryFn: () => unwrap(client.POST("/app/api/v1/reactivation/preview", { body: selection })),
  });

export const reactivationProofQuery = (input: ReactivationSelection & { template: CardTemplateInput }) =>
  queryOptions({
    queryKey: customerKeys.proof(input),
    queryFn: () => unwrap(client.POST("/app/api/v1/reactivation/proof", { body: input })),
    staleTime: 60_000,
  });

/** Added from a form that shows its failure itself (on the address, or under the form): no toast repeats it. */
export function useAddCustomer() {
  const invalidate = useInvalidateCustomers();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (body: { address: string; notes?: string }) =>
      unwrap(client.POST("/app/api/v1/customers", { body })),
    onSuccess: invalidate,
  });
}

/** Removed from a dialog that shows a failure itself: no toast repeats it. */
export function useRemoveCustomer() {
  const invalidate = useInvalidateCustomers();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (normalizedAddress: string) =>
      unwrap(
        client.DELETE("/app/api/v1/customers", {
          params: { query: { normalized_address: normalizedAddress } },
        }),
      ),
    onSuccess: invalidate,
  });
}

/** A home that became a customer stops its waiting cards: Approvals and Mail change with the list. */
function useInvalidateCustomers() {
  const queryClient = useQueryClient();
  const invalidateSafety = useInvalidateSafety();
  return () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: customerKeys.all }), invalidateSafety()]);
}

/** "2 cards waiting to be mailed to these homes were stopped.", or nothing when none waited. */
export function stoppedCardsWords(cards: number, homes: number): string {
  if (cards === 0) return "";
  const toHomes = homes === 1 ? "this home" : "these homes";
  return `${cards === 1 ? "1 card" : `${cards} cards`} waiting to be mailed to ${toHomes} ${cards === 1 ? "was" : "were"} stopped.`;
}

/** The file goes as the request body itself (text/csv): the server reads it as it streams. */
const asCsv = { bodySerializer: (file: unknown) => file as Blob, headers: { "content-type": "text/csv" } };

export function usePreviewCsv() {
  return useMutation({
    meta: { quiet: true },
    mutationFn: ({ file, purpose }: { file: File; purpose: UploadPurpose }) =>
      unwrap(
        client.POST("/app/api/v1/uploads/preview", { params: { query: { purpose } }, body: file, ...asCsv }),
      ),
  });
}

export type ColumnMapping = Record<string, string | null>;
const mappingQuery = (mapping: ColumnMapping) =>
  Object.fromEntries(Object.entries(mapping).filter((entry): entry is [string, string] => Boolean(entry[1])));

export type RowProblem = { line: number; message: string };
/** What an upload says it did, and the bad rows it left out (with `skipInvalid`). */
export type UploadOutcome = { summary: string; skipped: RowProblem[]; skippedCount: number };
const skippedOf = (result: { skipped?: RowProblem[]; skipped_count?: number }) => ({
  skipped: result.skipped ?? [],
  skippedCount: result.skipped_count ?? result.skipped?.length ?? 0,
});

const rowsWord = (count: number) => `${count} ${count === 1 ? "row" : "rows"}`;

/**
 * "Leading 0 put back in the ZIP of 3 rows (…)", or nothing: a spreadsheet that read the ZIP column
 * as numbers wrote 02134 as 2134, and the upload read it as 02134. Said, so the contractor knows
 * what was read and can fix the spreadsheet's column for next time.
 */
export function zipsRestoredWords(rows: number | undefined): string {
  if (!rows) return "";
  return `Leading 0 put back in the ZIP of ${rowsWord(rows)} (the spreadsheet had dropped it: 2134 is 02134).`;
}

/**
 * What an import of past jobs did, row by row of the file: how many were read, imported and left
 * out, and why ("2 rows imported, 0 without an address, 1 not found on the map" left it unclear
 * whether the one was among the two). The import keeps no skipped row, so none is named. Rows read
 * are the file's data rows, as the preview counted them when the file was picked: the rows the
 * import service was sent and those the upload left out as bad (`skipped_count`). Counting only the
 * former, a file of 6 rows read "6 rows read" when picked and "5 rows read" once its bad row was skipped.
 */
function pastJobsSummary(result: {
  staged: number;
  skipped_no_address: number;
  skipped_geocode_failed: number;
  skipped_count?: number;
  zip_leading_zeros_restored?: number;
}) {
  const refused = result.skipped_count ?? 0;
  const read = result.staged + result.skipped_no_address + result.skipped_geocode_failed + refused;
  const leftOut = [
    refused > 0 && `${rowsWord(refused)} that cannot be imported (listed below)`,
    result.skipped_no_address > 0 && `${rowsWord(result.skipped_no_address)} without an address`,
    result.skipped_geocode_failed > 0 &&
      `${rowsWord(result.skipped_geocode_failed)} whose address was not found on the map (check the street, town and ZIP in your file, then upload those rows again)`,
  ].filter(Boolean);
  const imported = `${rowsWord(read)} read: ${result.staged} imported.`;
  const counts = leftOut.length === 0 ? imported : `${imported} Left out: ${leftOut.join("; ")}.`;
  return [counts, zipsRestoredWords(result.zip_leading_zeros_restored)].filter(Boolean).join(" ");
}

export function useUploadCsv(purpose: UploadPurpose) {
  const queryClient = useQueryClient();
  const invalidateCustomers = useInvalidateCustomers();
  return useMutation({
    // Its refusals (bad rows) are shown beside the form, row by row.
    meta: { quiet: true },
    // `requestId` is made once per chosen file and mapping: a retry after a lost answer gets the
    // first answer back instead of adding the file a second time. `skipInvalid` takes the good rows
    // of a file with bad ones (a new upload, so a new request id).
    mutationFn: ({
      file,
      mapping,
      requestId,
      skipInvalid = false,
    }: {
      file: File;
      mapping: ColumnMapping;
      requestId: string;
      skipInvalid?: boolean;
    }): Promise<UploadOutcome> => {
      const query = {
        ...mappingQuery(mapping),
        request_id: requestId,
        ...(skipInvalid ? { skip_invalid_rows: "true" as const } : {}),
      };
      return purpose === "customers"
        ? unwrap(
            client.POST("/app/api/v1/customers/upload", { params: { query }, body: file, ...asCsv }),
          ).then((result) => ({
            summary: [
              `${result.added} new of ${result.rows} rows; ${result.total} customers in all.`,
              zipsRestoredWords(result.zip_leading_zeros_restored),
              stoppedCardsWords(result.stopped_cards, result.rows),
            ]
              .filter(Boolean)
              .join(" "),
            ...skippedOf(result),
          }))
        : unwrap(client.POST("/app/api/v1/imports/upload", { params: { query }, body: file, ...asCsv })).then(
            (result) => ({
              summary: pastJobsSummary(result),
              ...skippedOf(result),
            }),
          );
    },
    onSuccess: () =>
      purpose === "customers"
        ? invalidateCustomers()
        : queryClient.invalidateQueries({ queryKey: customerKeys.all }),
  });
}

/** Sent from a dialog that shows a failure itself (or the form's fields do): no toast repeats it. */
export function useSendReactivation() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (body: ReactivationMailing) =>
      unwrap(client.POST("/app/api/v1/reactivation/mailings", { body })),
    // Not awaited: the screen moves on to Mail, whose list is fetched anew.
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: mailKeys.all });
    },
  });
}
