import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";

/** Every src/href of the page, resolved against the page's own URL. */
function referencedAssets(html: string, pageUrl: string): URL[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1]!, pageUrl));
}

describe(`GET /docs, the interactive reference (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  const get = (url: string) => ctx.app.inject({ method: "GET", url, headers: { host: "porchlight.test" } });

  for (const pageUrl of ["/docs", "/docs/"]) {
    it(`serves ${pageUrl} and every script, style and icon it references from this server`, async () => {
      const page = await get(pageUrl);
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers["content-type"]), /^text\/html/);
      const html = page.body;
      assert.match(html, /Porchlight developer API 1\.0\.0/);

      const external = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)]
        .map((match) => match[0])
        .filter((url) => new URL(url).host !== "porchlight.test");
      assert.deepEqual(external, [], "no URL outside our host");

      const assets = referencedAssets(html, `http://porchlight.test${pageUrl}`);
      const kinds = assets.map((asset) => asset.pathname.split("/").pop());
      for (const expected of ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-initializer.js"]) {
        assert.ok(kinds.includes(expected), `the page loads ${expected}`);
      }
      for (const asset of assets) {
        assert.equal(asset.host, "porchlight.test", asset.href);
        const response = await get(asset.pathname);
        assert.equal(response.statusCode, 200, asset.pathname);
        assert.ok(response.rawPayload.length > 0, asset.pathname);
      }
    });
  }

  it("points the UI at the generated document (version 1.0.0) and calls no external validator", async () => {
    const initializer = await get("/docs/static/swagger-initializer.js");
    assert.equal(initializer.statusCode, 200);
    assert.match(initializer.body, /validatorUrl: null/);
    assert.match(initializer.body, /url: resolveUrl\('\.\/json'\)/, "the document comes from /docs/json");
    const document = await get("/docs/json");
    assert.equal(document.statusCode, 200);
    const parsed = document.json();
    assert.equal(parsed.openapi, "3.1.0");
    assert.equal(parsed.info.version, "1.0.0");
    assert.deepEqual(parsed.paths, (await get("/api/v1/openapi.json")).json().paths);
  });

  it("forbids every external origin in its Content-Security-Policy", async () => {
    const page = await get("/docs/static/swagger-ui-bundle.js");
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /https?:|\*/);
  });

  it("sends Referrer-Policy and X-Frame-Options with the page, its assets and its document, like the landing pages", async () => {
    for (const url of [
      "/docs",
      "/docs/",
      "/docs/static/swagger-ui-bundle.js",
      "/docs/json",
      "/docs/quickstart.md",
      "/docs/guides/quickstart",
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers["referrer-policy"], "no-referrer", url);
      assert.equal(response.headers["x-frame-options"], "DENY", url);
      assert.equal(response.headers["x-content-type-options"], "nosniff", url);
      assert.match(String(response.headers["content-security-policy"]), /frame-ancestors 'none'/, url);
    }
  });

  it("groups every operation under one of its tags, in the reference's order, lead.created under Webhooks", async () => {
    const document = (await get("/docs/json")).json();
    const names = [
      "Events",
      "Leads",
      "Webhooks",
      "Attribution",
      "Customers",
      "Import",
      "Automations",
      "Identity",
      "MCP",
    ];
    assert.deepEqual(
      document.tags.map((tag: { name: string }) => tag.name),
      names,
    );
    for (const tag of document.tags) assert.ok(tag.description, tag.name);
    const used = new Set<string>();
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, { tags: string[] }>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        assert.equal(operation.tags?.length, 1, `${method} ${path}`);
        assert.ok(names.includes(operation.tags[0]!), `${method} ${path}`);
        used.add(operation.tags[0]!);
      }
    }
    assert.deepEqual([...used].sort(), [...names].sort(), "no empty group");
    assert.equal(document.paths["/api/v1/events"].post.tags[0], "Events");
    assert.equal(document.paths["/api/v1/webhooks/trigger"].post.tags[0], "Automations");
    assert.equal(document.paths["/api/v1/tracking/lead"].post.tags[0], "Attribution");
    assert.deepEqual(document.webhooks["lead.created"].post.tags, ["Webhooks"]);
  });

  it("opens with a short intro linking the quickstart, which it serves, and shows the product's name for a logo", async () => {
    const document = (await get("/docs/json")).json();
    const intro = document.info.description.split("\n\n").slice(0, 2).join("\n\n");
    assert.match(intro, /^Bearer-key developer API of Porchlight/);
    assert.match(intro, /\[quickstart\]\(\/docs\/guides\/quickstart\)/);
    for (const guide of ["webhooks", "limits", "attribution", "zapier", "n8n"]) {
      assert.match(intro, new RegExp(`\\]\\(/docs/guides/${guide}\\)`), guide);
    }
    const quickstart = await get("/docs/quickstart.md");
    assert.match(String(quickstart.headers["content-type"]), /^text\/markdown/);
    assert.match(quickstart.body, /^# Quickstart/);

    const initializer = (await get("/docs/static/swagger-initializer.js")).body;
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer);
    assert.ok(logo, "the top bar's logo is replaced");
    const svg = Buffer.from(logo[1]!, "base64").toString("utf8");
    assert.match(svg, />Porchlight</);
    assert.doesNotMatch(svg, /swagger/i);
  });

  it("serves the integrator's guides as pages: no script, links between guides kept, no link to a file it does not serve", async () => {
    for (const name of ["quickstart", "webhooks", "limits", "attribution", "zapier", "n8n"]) {
      const url = `/docs/guides/${name}`;
      const guide = await get(url);
      assert.equal(guide.statusCode, 200, url);
      assert.match(String(guide.headers["content-type"]), /^text\/html/, url);
      const csp = String(guide.headers["content-security-policy"]);
      assert.match(csp, /default-src 'none'/, url);
      assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/, url);
      assert.doesNotMatch(guide.body, /<script/i, url);
      assert.match(guide.body, /<h1 id="[a-z0-9-]+">/, url);
      const ids = new Set([...guide.body.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
      for (const [, href] of guide.body.matchAll(/<a href="([^"]+)"/g)) {
        assert.doesNotMatch(href!, /\.md(#|$)|^\.\.?\//, `${url} links ${href}`);
        assert.doesNotMatch(href!, /^https?:/, `${url} links outside this server: ${href}`);
        const [target, fragment] = href!.split("#");
        if (target === "") {
          assert.ok(ids.has(fragment), `${url}: #${fragment} is a heading of the page`);
          continue;
        }
        const linked = await get(target!);
        assert.equal(linked.statusCode, 200, `${url} links ${href}`);
        if (fragment) assert.match(linked.body, new RegExp(` id="${fragment}"`), `${url} links ${href}`);
      }
    }
    const quickstart = (await get("/docs/guides/quickstart")).body;
    assert.match(quickstart, /<h2 id="4-send-the-first-event">4\. Send the first event<\/h2>/);
    assert.match(quickstart, /<a href="\/docs\/guides\/webhooks#polling">/);
    assert.match(quickstart, /back office, <code>docs\/operator-api\.md<\/code> in the repository\)/);
    assert.match(
      quickstart,
      /<a href="\/docs"><code>\/docs<\/code><\/a>/,
      "the local server's address is this server's",
    );
    assert.match(
      quickstart,
      /<pre tabindex="0"><code class="language-sh">npm ci\nnpm start\n<\/code><\/pre>/,
    );
    assert.equal((await get("/docs/guides/architecture")).statusCode, 404, "only the integrator's guides");
    for (const folder of ["/docs/guides", "/docs/guides/"]) {
      const index = await get(folder);
      assert.equal(index.statusCode, 302, folder);
      assert.equal(index.headers.location, "/docs/guides/quickstart", folder);
    }
    assert.match(String((await get("/docs/guides/limits")).headers["cache-control"]), /max-age=600/);
  });

  it("writes the guides' commands to this server's own address (PUBLIC_BASE_URL), so a pasted curl reaches it", async () => {
    const base = ctx.config.publicBaseUrl;
    assert.notEqual(base, "http://127.0.0.1:3000");
    for (const url of ["/docs/guides/quickstart", "/docs/quickstart.md"]) {
      const body = (await get(url)).body;
      assert.doesNotMatch(body, /127\.0\.0\.1:3000/, url);
      assert.ok(body.includes(`BASE=${base}\n`), `${url} sets BASE to ${base}`);
      assert.ok(body.includes(`curl -s ${base}/readyz`), `${url}: the readiness curl`);
    }
  });
});
