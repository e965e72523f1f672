import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import Fastify from "fastify";
import { registerWebApp, WEB_APP_CSP, type WebAppPages } from "../../src/http/web-app.ts";

function builtApp(): string {
  const dist = mkdtempSync(path.join(tmpdir(), "porchlight-web-"));
  mkdirSync(path.join(dist, "assets"));
  writeFileSync(
    path.join(dist, "index.html"),
    '<!doctype html><div id="root"></div><script type="module" src="/app/assets/index-abc123.js"></script>',
  );
  writeFileSync(path.join(dist, "assets", "index-abc123.js"), "console.log('app')");
  writeFileSync(path.join(dist, "favicon.svg"), "<svg/>");
  return dist;
}

async function serve(distDir: string, pages?: WebAppPages) {
  const app = Fastify();
  await registerWebApp(app, { distDir, pages });
  await app.ready();
  return app;
}

describe("the built web app at /app/", () => {
  test("sends the build's brotli or gzip copy of a file to a browser that accepts it, else the file", async () => {
    const dist = builtApp();
    const script = `console.log(${JSON.stringify("app ".repeat(500))})`;
    const file = path.join(dist, "assets", "index-abc123.js");
    writeFileSync(file, script);
    writeFileSync(`${file}.br`, brotliCompressSync(script));
    writeFileSync(`${file}.gz`, gzipSync(script));
    const app = await serve(dist);
    const asked = (acceptEncoding?: string) =>
      app.inject({
        method: "GET",
        url: "/app/assets/index-abc123.js",
        headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
      });
    const brotli = await asked("gzip, deflate, br");
    assert.equal(brotli.headers["content-encoding"], "br");
    assert.equal(brotliDecompressSync(brotli.rawPayload).toString(), script);
    const gzip = await asked("gzip");
    assert.equal(gzip.headers["content-encoding"], "gzip");
    assert.equal(gunzipSync(gzip.rawPayload).toString(), script);
    const plain = await asked();
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(plain.body, script);
    for (const answer of [brotli, gzip, plain]) {
      assert.match(String(answer.headers["content-type"]), /javascript/);
      assert.match(String(answer.headers.vary), /accept-encoding/i);
      assert.equal(answer.headers["cache-control"], "public, max-age=31536000, immutable");
    }
    await app.close();
  });

  test("serves files, falls back to index.html for app pages, and sends the strict CSP", async () => {
    const app = await serve(builtApp());
    const page = await app.inject({ method: "GET", url: "/app/automations/123" });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<div id="root">/);
    assert.equal(page.headers["content-security-policy"], WEB_APP_CSP);
    assert.match(WEB_APP_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(WEB_APP_CSP, /script-src[^;]*unsafe-inline/);
    assert.equal(page.headers["cache-control"], "no-cache");
    assert.equal(page.headers["x-content-type-options"], "nosniff");

    const root = await app.inject({ method: "GET", url: "/app/" });
    assert.equal(root.statusCode, 200);
    assert.match(root.body, /<div id="root">/);

    const asset = await app.inject({ method: "GET", url: "/app/assets/index-abc123.js" });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.match(String(asset.headers["content-type"]), /javascript/);

    const bare = await app.inject({ method: "GET", url: "/app" });
    assert.equal(bare.statusCode, 308);
    assert.equal(bare.headers.location, "/app/");
    await app.close();
  });

  test("never serves files outside the build, and /app/api/* is not a page", async () => {
    const app = await serve(builtApp());
    const outside = await app.inject({ method: "GET", url: "/app/..%2f..%2f..%2fetc%2fpasswd" });
    assert.doesNotMatch(outside.body, /root:/);
    const api = await app.inject({ method: "GET", url: "/app/api/v2/nothing" });
    assert.equal(api.statusCode, 404);
    // An escaped percent sign is not decoded twice: no broken escape, no 500 and no error in the log.
    for (const url of ["/app/%25zz", "/app/%25E0%25A4%25A", "/app/%252e%252e%252fpackage.json"]) {
      const escaped = await app.inject({ method: "GET", url });
      assert.ok(escaped.statusCode < 500, `${url}: ${escaped.statusCode}`);
      assert.doesNotMatch(escaped.body, /"name"|root:/);
    }
    await app.close();
  });

  test("without a build, /app/ answers 503 with a page saying how to build it", async () => {
    const app = await serve(mkdtempSync(path.join(tmpdir(), "porchlight-empty-")));
    const page = await app.inject({ method: "GET", url: "/app/" });
    assert.equal(page.statusCode, 503);
    assert.match(page.body, /npm run build/);
    await app.close();
  });

  test("with the operator API on its own listener, the console is served there and nowhere else", async () => {
    const dist = builtApp();
    const publicPort = await serve(dist, "contractor");
    const operatorPort = await serve(dist, "operator");
    const status = async (app: Awaited<ReturnType<typeof serve>>, url: string) =>
      (await app.inject({ method: "GET", url })).statusCode;

    assert.equal(await status(publicPort, "/app/automations"), 200);
    assert.equal(await status(publicPort, "/app/operator"), 404);
    assert.equal(await status(publicPort, "/app/operator/orgs"), 404);

    assert.equal(await status(operatorPort, "/app/operator"), 200);
    assert.equal(await status(operatorPort, "/app/operator/orgs"), 200);
    assert.equal(await status(operatorPort, "/app/assets/index-abc123.js"), 200);
    assert.equal(await status(operatorPort, "/app/automations"), 404);
    const bare = await operatorPort.inject({ method: "GET", url: "/app" });
    assert.equal(bare.headers.location, "/app/operator");
    await Promise.all([publicPort.close(), operatorPort.close()]);
  });
});
