import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { API_VERSION } from "./openapi.ts";

const DESCRIPTION = `The operator (back-office) API of Porchlight: organizations and their keys, automations, mailings, leads, jobs. Not part of the public developer interface, and not covered by its compatibility promise.

Every operation requires \`Authorization: Bearer <ADMIN_TOKEN>\`; after 20 wrong tokens in a minute from one client network, every operator request from there answers 429 until the minute ends. Lists answer an object holding one array named after the resource, newest first, \`?limit=\` bounding it.`;

/** An operation's group: the resource its path names, under an organization or on its own. */
function adminTagOf(path: string): string {
  const [first = "", , nested] = path.split("/").filter(Boolean);
  const resource = first === "orgs" && nested ? nested : first;
  const words = resource.replace(/[-_]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

type Operations = Record<string, Record<string, { tags?: string[] }>>;

/** The document's tag list: every group its operations use, in alphabetical order. */
function withUsedTags<Document extends { paths?: Operations; tags?: unknown }>(document: Document): Document {
  const used = new Set<string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) for (const tag of operation.tags ?? []) used.add(tag);
  }
  document.tags = [...used].sort().map((name) => ({ name }));
  return document;
}

/**
 * The operator API's own OpenAPI document, at `<prefix>/openapi.json` (behind the operator token
 * like every operator route). Registered inside the operator routes' scope, before them, so it
 * collects exactly those routes (under the scope's prefix, /admin/v1) and moves with them to whichever listener serves them. Its paths
 * are absolute and it names no server: it is read from wherever it was fetched.
 */
export async function registerAdminOpenApi(app: FastifyInstance): Promise<void> {
  const prefix = app.prefix;
  const documentPath = `${prefix}/openapi.json`;
  await app.register(swagger, {
    // A second instance beside the public document's (`app.swagger()`).
    decorator: "adminSwagger",
    openapi: {
      openapi: "3.1.0",
      info: { title: "Porchlight operator API", version: API_VERSION, description: DESCRIPTION },
      components: {
        securitySchemes: {
          adminToken: { type: "http", scheme: "bearer", description: "The operator token (ADMIN_TOKEN)." },
        },
      },
      security: [{ adminToken: [] }],
    } as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === "string" ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) =>
      withUsedTags((documentObject as { openapiObject: { paths?: Operations } }).openapiObject),
    // Operator routes mark themselves hidden, which keeps them out of the public document; here
    // every one of them is shown, under the group its path names.
    transform: ({ schema, url }) => {
      if (url === documentPath) return { schema: { ...schema, hide: true }, url };
      return { schema: { ...schema, hide: false, tags: [adminTagOf(url.slice(prefix.length))] }, url };
    },
  });
  const document = () => (app as unknown as { adminSwagger: () => unknown }).adminSwagger();
  app.get("/openapi.json", { schema: { hide: true } }, async () => document());
}
