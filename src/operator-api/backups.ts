import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { ErrorBody } from "../http/schemas.ts";
import type { Services } from "../services.ts";

const Backup = Type.Object({
  file: Type.String({ description: "The backup's path on the server (under DATA_DIR/backups/)." }),
  bytes: Type.Integer(),
  sha256: Type.Union([Type.String({ pattern: "^[0-9a-f]{64}$" }), Type.Null()], {
    description: "The whole file's SHA-256, also in `<file>.sha256` beside it (null: that file is missing).",
  }),
  created_at: Type.String({ format: "date-time" }),
});

const BackupList = Type.Object({
  backups: Type.Array(Backup, { description: "Newest first." }),
  last_failure: Type.Union(
    [
      Type.Object({
        at: Type.String({ format: "date-time" }),
        reason: Type.String(),
        scheduled: Type.Boolean({
          description: "True when the scheduled backup failed, false for a requested one.",
        }),
      }),
      Type.Null(),
    ],
    { description: "The latest backup that failed since this process started (null: none)." },
  ),
  schedule: Type.Object({
    interval_hours: Type.Integer({ description: "BACKUP_INTERVAL_HOURS (0: no scheduled backups)." }),
    keep: Type.Integer({ description: "BACKUP_KEEP: older backups are deleted after each new one." }),
    next_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  }),
});

/** Backups of the embedded database (docs/operations.md, Backups); PostgreSQL answers 409. */
export function registerAdminBackupRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const errors = { 401: ErrorBody, 409: ErrorBody };

  r.post(
    "/backups",
    {
      schema: {
        hide: true,
        operationId: "adminCreateBackup",
        summary: "Back up the embedded database now, while it serves",
        description:
          "Writes a consistent copy of the embedded database under DATA_DIR/backups/ (a .tar.gz and its .sha256); restore it with `npm run db:restore -- FILE`. One backup runs at a time: a request during another waits for it. On PostgreSQL: 409, use pg_dump.",
        response: { 201: Backup, ...errors },
      },
    },
    async (_request, reply) => reply.code(201).send(await services.backups.create()),
  );

  r.get(
    "/backups",
    {
      schema: {
        hide: true,
        operationId: "adminListBackups",
        summary: "The embedded database's backups, the schedule and the last failure",
        response: { 200: BackupList, ...errors },
      },
    },
    async () => services.backups.list(),
  );
}
