import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { admin, call, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

type Operations = Record<string, Record<string, { tags?: string[] }>>;

/** Every `METHOD path` a row of the operator page's table names (a cell may list several paths). */
function documentedRoutes(): Set<string> {
  const page = readFileSync(path.resolve(import.meta.dirname, "../../docs/operator-api.md"), "utf8");
  const routes = new Set<string>();
  for (const line of page.split("\n")) {
    const row = /^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    for (const [, route] of row[2]!.matchAll(/`([^`]+)`/g)) routes.add(`${row[1]} /admin/v1${route}`);
  }
  return routes;
}

describe(`the operator API's own OpenAPI document and its list of organizations (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("serves every operator route in /admin/v1/openapi.json, behind the operator token, and none in the public one", async () => {
    const anonymous = await call(ctx, "GET", "/admin/v1/openapi.json");
    assert.equal(anonymous.status, 401);
    const response = await admin(ctx, "GET", "/openapi.json");
    assert.equal(response.status, 200, response.text);
    const document = response.body as {
      openapi: string;
      info: { title: string };
      paths: Operations;
      tags: { name: string }[];
    };
    assert.equal(document.openapi, "3.1.0");
    assert.match(document.info.title, /operator API/);
    const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ route, method, operation })),
    );
    for (const { route, method, operation } of operations) {
      assert.ok(route.startsWith("/admin/v1/"), route);
      assert.notEqual(route, "/admin/v1/openapi.json");
      assert.equal(operation.tags?.length, 1, `${method} ${route}`);
      assert.ok(
        document.tags.some((tag) => tag.name === operation.tags![0]),
        `${method} ${route}`,
      );
    }
    const names = new Set(operations.map(({ route, method }) => `${method.toUpperCase()} ${route}`));
    for (const expected of [
      "GET /admin/v1/orgs",
      "POST /admin/v1/orgs",
      "POST /admin/v1/orgs/{org_id}/keys",
      "DELETE /admin/v1/keys/{id}",
      "POST /admin/v1/orgs/{org_id}/mailings",
      "GET /admin/v1/jobs",
      "PUT /admin/v1/kill-switch",
    ]) {
      assert.ok(names.has(expected), expected);
    }
    const publicDocument = (await call(ctx, "GET", "/api/v1/openapi.json")).body as { paths: Operations };
    assert.deepEqual(
      Object.keys(publicDocument.paths).filter((route) => !route.startsWith("/api/")),
      [],
    );

    // The operator page documents every route of the document.
    const documented = documentedRoutes();
    const undocumented = [...names].filter((name) => !documented.has(name));
    assert.deepEqual(undocumented, [], "routes missing from docs/operator-api.md");
  });

  it("lists organizations newest first, a page at a time, each once, however they are paged", async () => {
    const created: string[] = [];
    for (let index = 0; index < 5; index++)
      created.push((await createOrg(ctx, { name: `Paged ${index}` })).orgId);
    const seen: { org_id: string; org_name: string; billing_owner: boolean; created_at: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const page = await admin(ctx, "GET", `/orgs${query}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.orgs.length <= 2);
      seen.push(...page.body.orgs);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    const ids = seen.map((org) => org.org_id);
    assert.equal(new Set(ids).size, ids.length, "no organization twice");
    const whole = await admin(ctx, "GET", "/orgs");
    assert.deepEqual(
      whole.body.orgs.map((org: { org_id: string }) => org.org_id),
      ids,
      "pages add up to the whole list",
    );
    assert.equal(whole.body.next_cursor, null);
    // The five just created come first, newest first.
    assert.deepEqual(ids.slice(0, 5), [...created].reverse());
    assert.deepEqual(Object.keys(seen[0]!).sort(), ["billing_owner", "created_at", "org_id", "org_name"]);
    assert.equal(seen[0]!.org_name, "Paged 4");

    for (const query of ["?limit=0", "?limit=10000", "?cursor=bm90LWEtY3Vyc29y", "?page=2"]) {
      const refused = await admin(ctx, "GET", `/orgs${query}`);
      assert.equal(refused.status, 422, query);
    }
    assert.equal((await call(ctx, "GET", "/admin/v1/orgs")).status, 401);
  });

  it("refuses a ?limit= outside its range or not a whole number on every list, as it refuses a bad cursor, never cutting it down", async () => {
    const { orgId } = await createOrg(ctx, { name: "Limits" });
    const badCursor = await admin(ctx, "GET", "/orgs?cursor=bm90LWEtY3Vyc29y");
    assert.equal(badCursor.status, 422, badCursor.text);
    const lists: [string, number][] = [
      ["/orgs", 1000],
      ["/jobs", 1000],
      [`/orgs/${orgId}/conversions`, 1000],
      [`/orgs/${orgId}/customers`, 1000],
      [`/orgs/${orgId}/leads`, 1000],
      [`/orgs/${orgId}/neighbour-jobs`, 1000],
      [`/orgs/${orgId}/do-not-mail`, 1000],
      [`/orgs/${orgId}/deliveries`, 500],
      [`/automations/${crypto.randomUUID()}/waiting-pieces`, 1000],
    ];
    for (const [list, max] of lists) {
      for (const limit of [String(max + 1), "5000", "0", "-1", "1.5", "1e3", "ten", ""]) {
        const refused = await admin(ctx, "GET", `${list}?limit=${limit}`);
        assert.equal(refused.status, badCursor.status, `${list}?limit=${limit}: ${refused.text}`);
        assert.deepEqual(Object.keys(refused.body).sort(), Object.keys(badCursor.body).sort());
        assert.equal(refused.body.error, badCursor.body.error);
        assert.equal(refused.body.detail, `limit: must be a whole number from 1 to ${max}`, list);
      }
      if (list.startsWith("/automations/")) continue; // no such automation: 404 once the limit passes
      for (const limit of ["1", String(max)]) {
        const accepted = await admin(ctx, "GET", `${list}?limit=${limit}`);
        assert.equal(accepted.status, 200, `${list}?limit=${limit}: ${accepted.text}`);
      }
    }
  });
});
