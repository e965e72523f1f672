import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { bearerToken } from "../../domain/api-key-format.ts";
import { ipRateLimited, unauthorized } from "../../errors.ts";
import { soleAuthorization } from "../../http/authorization-header.ts";
import type { Services } from "../../services/services.ts";
import { registerAdminAttributionRoutes } from "./attribution-admin.ts";
import { registerAdminAutomationRoutes } from "./automations.ts";
import { registerAdminCampaignRoutes } from "./campaigns.ts";
import { registerAdminEventRoutes } from "./events.ts";
import { registerAdminImportRoutes } from "./imports.ts";
import { registerAdminLeadRoutes } from "./leads-admin.ts";
import { registerAdminOrgRoutes } from "./orgs.ts";
import { registerAdminPieceRoutes } from "./pieces.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Wrong operator tokens tolerated per client IP and minute; past them every admin request from
 * that IP, right token or not, answers 429 until the minute ends (no guessing at request rate).
 */
export const ADMIN_AUTH_FAILURES_PER_MINUTE = 20;
const FAILURES_BUCKET = "admin-auth-failures";

/** The operator API (the app's back office): ADMIN_TOKEN bearer, not part of the public interface. */
export async function registerAdminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const expected = services.config.adminToken ? digest(services.config.adminToken) : undefined;
  const limiter = services.limiter;
  app.addHook("onRequest", async (request) => {
    const failures = await limiter.peek(FAILURES_BUCKET, request.ip, 60);
    if (failures.count >= ADMIN_AUTH_FAILURES_PER_MINUTE) throw ipRateLimited(failures.secondsToWindowEnd);
    const token = bearerToken(soleAuthorization(request.raw));
    if (!expected || !token || !timingSafeEqual(digest(token), expected)) {
      await limiter.hit(FAILURES_BUCKET, request.ip, ADMIN_AUTH_FAILURES_PER_MINUTE, 60);
      throw unauthorized();
    }
  });
  registerAdminOrgRoutes(app, services);
  registerAdminAttributionRoutes(app, services);
  registerAdminAutomationRoutes(app, services);
  registerAdminCampaignRoutes(app, services);
  registerAdminImportRoutes(app, services);
  registerAdminEventRoutes(app, services);
  registerAdminLeadRoutes(app, services);
  registerAdminPieceRoutes(app, services);
}
