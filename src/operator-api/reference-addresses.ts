import type { Readable } from "node:stream";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { notFound } from "../errors.ts";
import { allowLongUpload } from "../http/long-upload.ts";
import { ErrorBody } from "../http/schemas.ts";
import { ReferenceAddressUpload } from "../neighbours/upload-progress.ts";
import type { Services } from "../services.ts";

const UPLOADS_LISTED = 20;

const FileBody = Type.Unsafe<Readable>({
  description:
    "An OpenAddresses file as the body: CSV (text/csv) or GeoJSON lines (application/geo+json-seq, application/x-ndjson), plain or gzip (Content-Encoding: gzip, application/gzip, or recognised by its first bytes). Any other Content-Type has its format recognised from its first character (`{`: GeoJSON lines).",
});

const UploadParams = Type.Object(
  { upload_id: Type.String({ format: "uuid" }) },
  { additionalProperties: false },
);

/**
 * Neighbour addresses from the console (docs/neighbour-mail.md, "Uploading from the console"):
 * the upload, its progress, and the recent uploads.
 */
export async function registerAdminReferenceAddressRoutes(
  app: FastifyInstance,
  services: Services,
): Promise<void> {
  const uploads = services.referenceUploads;
  // The embedded database belongs to this process: a running upload found at start is a dead one's.
  await uploads.failAbandoned({ all: services.database.kind === "pglite" });
  app.addHook("onClose", () => uploads.close());

  // The body is a stream of any type, on this route only (the JSON parser stays everywhere else).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      "/reference-addresses",
      {
        bodyLimit: services.config.referenceUploadMaxBytes,
        schema: {
          hide: true,
          operationId: "adminUploadReferenceAddresses",
          summary: "Upload an OpenAddresses file of neighbour addresses; it loads while the server serves",
          description:
            "Streams the body to a file under DATA_DIR, answers 202 with the upload's id once it is there, then loads it by the rules of `npm run addresses:load` (bad rows counted and skipped, homes already loaded skipped). Follow it with GET /reference-addresses/uploads/{upload_id}. Loads run one at a time per process.",
          body: FileBody,
          response: {
            202: Type.Object({ upload_id: Type.String({ format: "uuid" }) }, { additionalProperties: false }),
            400: ErrorBody,
            401: ErrorBody,
            413: ErrorBody,
            415: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        allowLongUpload(request, reply, services.config.requestTimeoutMs);
        const declared = request.headers["content-length"];
        const upload_id = await uploads.receive(request.body as Readable, {
          contentType: request.headers["content-type"],
          contentEncoding: request.headers["content-encoding"],
          declaredBytes: declared === undefined ? undefined : Number(declared),
        });
        return reply.code(202).send({ upload_id });
      },
    );
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    "/reference-addresses/uploads",
    {
      schema: {
        hide: true,
        operationId: "adminListReferenceAddressUploads",
        summary: `The ${UPLOADS_LISTED} newest uploads of reference addresses and their progress`,
        response: {
          200: Type.Object({ uploads: Type.Array(ReferenceAddressUpload) }, { additionalProperties: false }),
          401: ErrorBody,
        },
      },
    },
    async () => {
      await uploads.failAbandoned({ all: false });
      return { uploads: await uploads.list(UPLOADS_LISTED) };
    },
  );

  r.get(
    "/reference-addresses/uploads/:upload_id",
    {
      schema: {
        hide: true,
        operationId: "adminGetReferenceAddressUpload",
        summary: "One upload's progress: running, done or failed, with its row counts",
        params: UploadParams,
        response: { 200: ReferenceAddressUpload, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      await uploads.failAbandoned({ all: false });
      const upload = await uploads.find(request.params.upload_id);
      if (!upload) throw notFound("upload not found");
      return upload;
    },
  );
}
