import type { SQL } from "drizzle-orm";
import { AppError } from "../errors.ts";
import { sql } from "./database.ts";

/** A position in a list ordered newest first by (created_at, id). */
export interface KeysetCursor {
  createdAt: string;
  id: string;
}

/**
 * created_at as text to the microsecond, for the cursor: a JavaScript Date keeps milliseconds
 * only, and a cursor rounded down would skip the rows sharing that millisecond.
 */
export const cursorTime = (column: SQL) =>
  sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A cursor's time as `cursorTime` writes it, and a real instant: the shape alone let
 * 2024-02-30 through to the database, which refused it with a 500.
 */
export function isCursorTime(text: unknown): text is string {
  if (typeof text !== "string" || !/^[12]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/.test(text))
    return false;
  const instant = new Date(text);
  return !Number.isNaN(instant.getTime()) && instant.toISOString().slice(0, 19) === text.slice(0, 19);
}

export const encodeKeysetCursor = (cursor: KeysetCursor) =>
  Buffer.from(`${cursor.createdAt}|${cursor.id}`).toString("base64url");

export function decodeKeysetCursor(cursor: string): KeysetCursor {
  const [createdAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (
    !createdAt ||
    !id ||
    !isCursorTime(createdAt) ||
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
  ) {
    throw new AppError(422, "invalid_payload", "cursor: not a cursor this list gave");
  }
  return { createdAt, id };
}

/** The rows of one page (the query fetched limit + 1) and the cursor of the next, null on the last. */
export function keysetPage<T extends { id: string; cursor_at: string }>(rows: T[], limit: number) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor:
      rows.length > limit && last ? encodeKeysetCursor({ createdAt: last.cursor_at, id: last.id }) : null,
  };
}
