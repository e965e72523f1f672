import { writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { screenChunks } from "./screen-chunks.ts";

// The service serves the built app at /app/; in development Vite serves it and hands the API calls to
// the service (PORCHLIGHT_URL, default the service's default port) so cookies stay same-origin. The
// service accepts a change only from its own origin (CSRF), so the proxy presents that origin.
const serviceUrl = process.env.PORCHLIGHT_URL ?? "http://127.0.0.1:3000";
const toService = { target: serviceUrl, changeOrigin: true, headers: { origin: serviceUrl } };

/** A module of an installed library whose path (after node_modules/) matches, style sheets excepted. */
const library = (path: RegExp) => (id: string) => {
  const [, installed] = id.split(/node_modules[\\/]/);
  return installed !== undefined && path.test(installed) && !id.endsWith(".css");
};

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside each text file of the build, once: the service
 * sends them to browsers that accept them (@fastify/static's preCompressed), a third of the bytes.
 */
const precompressed = (): Plugin => ({
  name: "porchlight-precompressed",
  apply: "build",
  writeBundle(options, bundle) {
    for (const file of Object.values(bundle)) {
      if (!/\.(js|css|html|svg|json)$/.test(file.fileName)) continue;
      const bytes = Buffer.from(file.type === "chunk" ? file.code : file.source);
      if (bytes.length < 1024) continue;
      const target = path.join(options.dir ?? "dist", file.fileName);
      writeFileSync(`${target}.br`, brotliCompressSync(bytes));
      writeFileSync(`${target}.gz`, gzipSync(bytes, { level: 9 }));
    }
  },
});

export default defineConfig({
  base: "/app/",
  plugins: [react(), precompressed(), screenChunks("/app/")],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // The libraries every screen needs get chunks of their own, so a release of the app's code leaves
        // them cached. Charts (recharts) have no group: only Overview and Revenue import them, so the
        // bundler's split of the lazy routes keeps them in a chunk only those two screens load (a group
        // would also capture their dependencies, which the first screen shares, and load with it).
        // Style sheets stay out of the groups: main.tsx imports them all.
        codeSplitting: {
          groups: [
            { name: "react", test: library(/^(react|react-dom|scheduler)[\\/]/), priority: 2 },
            { name: "mantine", test: library(/^@mantine[\\/](core|hooks)[\\/]/), priority: 2 },
            { name: "tanstack", test: library(/^@tanstack[\\/]/), priority: 2 },
          ],
        },
      },
    },
  },
  server: {
    host: "127.0.0.1",
    proxy: {
      "/app/api": toService,
      "/admin/v1": toService,
      "/api/v1": toService,
      "/docs": toService,
    },
  },
});
