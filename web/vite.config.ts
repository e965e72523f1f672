import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The service serves the built app at /app/; in development Vite serves it and hands the API calls to
// the service (PORCHLIGHT_URL, default the service's default port) so cookies stay same-origin. The
// service accepts a change only from its own origin (CSRF), so the proxy presents that origin.
const serviceUrl = process.env.PORCHLIGHT_URL ?? "http://127.0.0.1:3000";
const toService = { target: serviceUrl, changeOrigin: true, headers: { origin: serviceUrl } };

export default defineConfig({
  base: "/app/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
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
