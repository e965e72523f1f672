import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The service serves the built app at /app/; in development Vite serves it and hands the API calls to
// the service (PORCHLIGHT_URL, default the service's default port) so cookies stay same-origin.
const serviceUrl = process.env.PORCHLIGHT_URL ?? "http://127.0.0.1:3000";

export default defineConfig({
  base: "/app/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    host: "127.0.0.1",
    proxy: {
      "/app/api": { target: serviceUrl, changeOrigin: false },
      "/admin/v1": { target: serviceUrl, changeOrigin: false },
      "/api/v1": { target: serviceUrl, changeOrigin: false },
      "/docs": { target: serviceUrl, changeOrigin: false },
    },
  },
});
