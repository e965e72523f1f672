import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { checkedCustomerKey, type KeyedCustomerEntry } from "../../src/customers/customers.ts";
import { type Queryable, queryRows, sql } from "../../src/db/database.ts";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { databaseLabel, openTestDatabase } from "../helpers/harness.ts";

const BACKFILL_MIGRATION = "0400_customer_upload_sources";

const entry = (address: string): KeyedCustomerEntry => ({
  address,
  field: "address",
  key: checkedCustomerKey({ address, field: "address" }),
});

/**
 * Customers as the app wrote them then: today's registerCustomers also stops the homes' follow-up
 * cards with columns this old schema does not have yet (stopped_by, migration 0620).
 */
async function registerCustomers(
  db: Queryable,
  orgId: string,
  entries: KeyedCustomerEntry[],
  source: string,
  _now: Date,
) {
  const added = await queryRows(
    db,
    sql`INSERT INTO customers (org_id, normalized_address, address, source)
        VALUES ${sql.join(
          entries.map((entry) => sql`(${orgId}::uuid, ${entry.key}, ${entry.address}, ${source})`),
          sql`, `,
        )}
        ON CONFLICT DO NOTHING RETURNING address`,
  );
  return { added: added.length, total: entries.length };
}

/**
 * An upload as the app recorded it then: its customers and, with a request id, its customer_uploads
 * row in one transaction (the columns of that time; the service's own insert writes later ones).
 */
function registerCustomerUpload(
  db: Queryable,
  orgId: string,
  requestId: string | undefined,
  entries: KeyedCustomerEntry[],
  source: "app",
  now: Date,
) {
  return db.transaction(async (tx) => {
    const { added, total } = await registerCustomers(tx, orgId, entries, source, now);
    if (requestId !== undefined) {
      await tx.execute(
        sql`INSERT INTO customer_uploads (org_id, request_id, added, total, row_count)
            VALUES (${orgId}::uuid, ${requestId}::uuid, ${added}, ${total}, ${entries.length})`,
      );
    }
    return { added, rows: entries.length };
  });
}

describe(`customers: migration relabelling CSV-uploaded customers stored as app (${databaseLabel})`, () => {
  it("relabels exactly the customers an upload with a request id added; hand-typed, webhook and unrecorded uploads stay", async () => {
    const all = await loadMigrations();
    const { database, drop } = await openTestDatabase({
      migrations: all.filter((migration) => migration.version < BACKFILL_MIGRATION),
    });
    const db = database.db;
    try {
      const org = randomUUID();
      const other = randomUUID();
      await db.execute(
        sql`INSERT INTO organizations (id, name) VALUES (${org}, 'Rita''s Roofing'), (${other}, 'Other Org')`,
      );
      const now = new Date();
      // History as the app wrote it before the upload stored csv_upload: every app customer is "app".
      await registerCustomers(db, org, [entry("5 Typed Ln, Springfield, IL 62704")], "app", now);
      await registerCustomers(db, org, [entry("9 Hook St, Springfield, IL 62704")], "webhook", now);
      const upload = await registerCustomerUpload(
        db,
        org,
        randomUUID(),
        [
          entry("1 File Rd, Springfield, IL 62704"),
          entry("2 File Rd, Springfield, IL 62704"),
          // Typed by hand first: the file adds nothing for it, and it stays as typed.
          entry("5 Typed Ln, Springfield, IL 62704"),
        ],
        "app",
        now,
      );
      assert.deepEqual({ added: upload.added, rows: upload.rows }, { added: 2, rows: 3 });
      // Another org's upload, and an upload without a request id (nothing recorded it).
      await registerCustomerUpload(
        db,
        other,
        randomUUID(),
        [entry("3 File Rd, Springfield, IL 62704")],
        "app",
        now,
      );
      await registerCustomerUpload(
        db,
        org,
        undefined,
        [entry("4 Unrecorded Rd, Springfield, IL 62704")],
        "app",
        now,
      );
      // An upload that shares its instant with a customer it did not add cannot be told apart: left as it is.
      const ambiguous = randomUUID();
      await registerCustomerUpload(
        db,
        org,
        ambiguous,
        [entry("6 Ambiguous Ave, Springfield, IL 62704")],
        "app",
        now,
      );
      await db.execute(
        sql`INSERT INTO customers (org_id, normalized_address, address, source, created_at)
            SELECT org_id, '7 coincident ave, springfield, il 62704', '7 Coincident Ave, Springfield, IL 62704', 'app', created_at
            FROM customer_uploads WHERE org_id = ${org}::uuid AND request_id = ${ambiguous}::uuid`,
      );

      await migrate(db);

      const rows = await queryRows<{ org_id: string; address: string; source: string }>(
        db,
        sql`SELECT org_id, address, source FROM customers ORDER BY address`,
      );
      const sourceOf = new Map(rows.map((row) => [row.address, row.source]));
      assert.deepEqual(Object.fromEntries(sourceOf), {
        "1 File Rd, Springfield, IL 62704": "csv_upload",
        "2 File Rd, Springfield, IL 62704": "csv_upload",
        "3 File Rd, Springfield, IL 62704": "csv_upload",
        "4 Unrecorded Rd, Springfield, IL 62704": "app",
        "5 Typed Ln, Springfield, IL 62704": "app",
        "6 Ambiguous Ave, Springfield, IL 62704": "app",
        "7 Coincident Ave, Springfield, IL 62704": "app",
        "9 Hook St, Springfield, IL 62704": "webhook",
      });
    } finally {
      await drop();
    }
  });
});
