import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { App } from "../../src/app.ts";

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        responses?: Record<
          string,
          { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { required?: boolean }> }
        >;
      }
    >
  >;
}

interface DocumentValidator {
  document: OpenApiDocument;
  ajv: Ajv2020;
  templates: { template: string; pattern: RegExp }[];
}

const validators = new WeakMap<App, DocumentValidator>();

function validatorFor(app: App): DocumentValidator {
  const cached = validators.get(app);
  if (cached) return cached;
  const document = (app as unknown as { swagger(): OpenApiDocument }).swagger();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document as object, "openapi");
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`,
    ),
  }));
  const validator = { document, ajv, templates };
  validators.set(app, validator);
  return validator;
}

const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/**
 * Proves the interface description by the tests: every response an integration test receives
 * from a documented operation must be documented for its status and match that schema.
 */
export function assertMatchesDocument(
  app: App,
  method: string,
  url: string,
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
): void {
  const contentType = headers["content-type"] as string | undefined;
  const { document, ajv, templates } = validatorFor(app);
  const path = url.split("?")[0]!;
  const match = templates.find(({ pattern }) => pattern.test(path));
  if (!match) return; // not a documented operation (operator API, landing pages, unknown routes)
  const operation = document.paths[match.template]?.[method.toLowerCase()];
  if (!operation) return; // an undocumented method answers 404 like any unknown route
  const response = operation.responses?.[String(status)];
  if (!response) {
    throw new Error(
      `OpenAPI: ${method} ${match.template} answered ${status}, which the document does not declare`,
    );
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && headers[name.toLowerCase()] === undefined) {
      throw new Error(`OpenAPI: ${method} ${match.template} ${status} declares ${name} but did not send it`);
    }
  }
  const media = response.content?.["application/json"];
  if (!media?.schema) return;
  if (!contentType?.includes("application/json")) {
    throw new Error(`OpenAPI: ${method} ${match.template} ${status} declares JSON but sent ${contentType}`);
  }
  const ref = `openapi#/${pointer("paths", match.template, method.toLowerCase(), "responses", String(status), "content", "application/json", "schema")}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(body)) {
    throw new Error(
      `OpenAPI: ${method} ${match.template} ${status} body does not match the document: ${ajv.errorsText(validate.errors)}\nbody: ${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}
