import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import { createLazySchemas } from "../../src/http/lazy-schemas.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";

function appWithLazySchemas() {
  const lazySchemas = createLazySchemas();
  const app = Fastify({
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false },
      plugins: [lazySchemas.ajvPlugin],
    },
    schemaController: { compilersFactory: { buildSerializer: lazySchemas.buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  return { app, lazySchemas };
}

const Named = Type.Object(
  { name: Type.String({ minLength: 1 }) },
  { $id: "Named", additionalProperties: false },
);

describe("route schemas compiled on first use", () => {
  let context: TestContext | undefined;
  after(async () => context?.close());

  it("every route of the service compiles its request and response schemas", async () => {
    context = await createTestContext();
    const compiled = context.app.compileAllSchemas();
    assert.ok(compiled > 50, `only ${compiled} schemas were waiting: the app compiled them at start`);
    assert.equal(context.app.compileAllSchemas(), 0);
  });

  it("validate, report errors and serialize as compiled-at-start schemas do, $id shared by two routes", async () => {
    const { app, lazySchemas } = appWithLazySchemas();
    for (const url of ["/a", "/b"]) {
      app.post(
        url,
        { schema: { body: Named, response: { 200: Type.Object({ name: Type.String() }) } } },
        async (request) => ({ ...request.body, secret: "never serialized" }),
      );
    }
    await app.ready();
    const refused = await app.inject({ method: "POST", url: "/a", payload: { name: "" } });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().message, /body\/name must NOT have fewer than 1 characters/);
    const unknown = await app.inject({ method: "POST", url: "/b", payload: { name: "x", extra: 1 } });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().message, /must NOT have additional properties/);
    for (const url of ["/a", "/b"]) {
      const accepted = await app.inject({ method: "POST", url, payload: { name: "Ada" } });
      assert.equal(accepted.statusCode, 200);
      assert.deepEqual(accepted.json(), { name: "Ada" }, "the response schema is an allow-list");
    }
    assert.equal(
      lazySchemas.compileAll(),
      0,
      "every schema these routes use was compiled by its first request",
    );
    await app.close();
  });
});
