import type { ImportBatch } from "../../api/customers.ts";

/** Where a batch of past jobs came from, in words (Past jobs and a batch's page say it alike). */
export const BATCH_ORIGIN_WORDS: Record<ImportBatch["origin"], string> = {
  api: "Developer API import",
  app_upload: "CSV upload in the app",
};
