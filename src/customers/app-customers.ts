import { type Queryable, queryRows, sql } from "../db/database.ts";
import { cursorTime, isCursorTime } from "../db/keyset-cursor.ts";
import { csvCell } from "../domain/csv-cell.ts";
import { AppError } from "../errors.ts";
import type { CustomerView } from "./customers.ts";

/** A position in the suppression list, ordered newest first by (created_at, normalized address). */
interface CustomerCursor {
  createdAt: string;
  key: string;
}

const encodeCursor = (cursor: CustomerCursor) =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.key])).toString("base64url");

function decodeCursor(cursor: string): CustomerCursor {
  try {
    const [createdAt, key] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (isCursorTime(createdAt) && typeof key === "string") return { createdAt, key };
  } catch {
    // Not ours: the same answer as a well-formed stranger below.
  }
  throw new AppError(422, "invalid_payload", "cursor: not a cursor this list gave");
}

const likePattern = (query: string) => `%${query.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the org's customers, newest first, optionally those whose address contains `q`
 * (any case, literally). Keyset paging: a page is found by the index, however deep.
 */
export async function customersPage(
  db: Queryable,
  orgId: string,
  options: { q?: string | undefined; cursor?: string | undefined; limit: number },
): Promise<{ customers: CustomerView[]; next_cursor: string | null }> {
  const after = options.cursor ? decodeCursor(options.cursor) : undefined;
  const q = options.q?.trim() ? likePattern(options.q) : undefined;
  const rows = await queryRows<CustomerView & { created_at: string }>(
    db,
    sql`SELECT normalized_address, address, notes, source, ${cursorTime(sql`created_at`)} AS created_at
        FROM customers
        WHERE org_id = ${orgId}::uuid
          ${q ? sql`AND (address ILIKE ${q} OR normalized_address ILIKE ${q})` : sql``}
          ${after ? sql`AND (created_at, normalized_address) < (${after.createdAt}::timestamptz, ${after.key})` : sql``}
        ORDER BY created_at DESC, normalized_address DESC
        LIMIT ${options.limit + 1}`,
  );
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    customers: page.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() })),
    next_cursor:
      rows.length > options.limit && last
        ? encodeCursor({ createdAt: last.created_at, key: last.normalized_address })
        : null,
  };
}

export interface OptedOutHome {
  normalized_address: string;
  /** The address as the card that carried the opt-out printed it. */
  address: string | null;
  opted_out_at: string;
  piece_id: string | null;
  campaign_name: string | null;
  automation_name: string | null;
}

/** The org's do-not-mail list (homes that opted out on a landing page), newest first, with the piece each came from. */
export async function optedOutHomes(
  db: Queryable,
  orgId: string,
  options: { q?: string | undefined; limit: number },
): Promise<OptedOutHome[]> {
  const q = options.q?.trim() ? likePattern(options.q) : undefined;
  const rows = await queryRows<OptedOutHome & { opted_out_at: Date | string }>(
    db,
    sql`SELECT d.normalized_address, p.address, d.created_at AS opted_out_at, d.piece_id,
               c.name AS campaign_name, a.name AS automation_name
        FROM do_not_mail d
        LEFT JOIN mail_pieces p ON p.org_id = d.org_id AND p.id = d.piece_id
        LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
        LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE d.org_id = ${orgId}::uuid
          ${q ? sql`AND (d.normalized_address ILIKE ${q} OR p.address ILIKE ${q})` : sql``}
        ORDER BY d.created_at DESC, d.normalized_address
        LIMIT ${options.limit}`,
  );
  return rows.map((row) => ({ ...row, opted_out_at: new Date(row.opted_out_at).toISOString() }));
}

/** Where a customer came from, as the Customers screen says it. */
const SOURCE_WORDS: Record<string, string> = {
  app: "Customer: added in the app",
  csv_upload: "Customer: a CSV upload",
  lead_won: "Customer: a won job marked in the app",
  webhook: "Customer: your CRM",
  conversion: "Customer: a won deal",
  trigger: "Customer: a won deal",
};

const DO_NOT_MAIL_HEADER = ["address", "why never mailed", "notes", "since"];

const doNotMailLine = (cells: (string | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;

/**
 * Every home the org never mails, as CSV: its customers, then the homes that opted out on a card's
 * landing page, each read a page at a time (keyset) as the download is sent, so memory stays one
 * page at any size. For another mail vendor's suppression list, or a check against the CRM.
 */
export async function* doNotMailCsv(db: Queryable, orgId: string, pageRows = 2000) {
  yield doNotMailLine(DO_NOT_MAIL_HEADER);
  let cursor: string | null = null;
  do {
    const page = await customersPage(db, orgId, { cursor: cursor ?? undefined, limit: pageRows });
    const why = (source: string) => SOURCE_WORDS[source] ?? `Customer: ${source}`;
    yield page.customers
      .map((row) => doNotMailLine([row.address, why(row.source), row.notes, row.created_at]))
      .join("");
    cursor = page.next_cursor;
  } while (cursor);
  let after: CustomerCursor | undefined;
  do {
    const rows = await queryRows<{ key: string; address: string | null; at: string }>(
      db,
      sql`SELECT d.normalized_address AS key, p.address, ${cursorTime(sql`d.created_at`)} AS at
          FROM do_not_mail d LEFT JOIN mail_pieces p ON p.org_id = d.org_id AND p.id = d.piece_id
          WHERE d.org_id = ${orgId}::uuid
            ${after ? sql`AND (d.created_at, d.normalized_address) < (${after.createdAt}::timestamptz, ${after.key})` : sql``}
          ORDER BY d.created_at DESC, d.normalized_address DESC LIMIT ${pageRows}`,
    );
    yield rows
      .map((row) =>
        doNotMailLine([
          row.address ?? row.key,
          "Opted out on a landing page",
          null,
          new Date(row.at).toISOString(),
        ]),
      )
      .join("");
    const last = rows.at(-1);
    after = rows.length === pageRows && last ? { createdAt: last.at, key: last.key } : undefined;
  } while (after);
}
