import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

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

export default defineConfig({
  base: "/app/",
  plugins: [react()],
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
