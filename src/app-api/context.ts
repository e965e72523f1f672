import type { Logger } from "pino";
import type { ConnectDeps } from "../hubspot/connect.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { LogoRasterizer } from "../render/logo-rasterizer.ts";
import type { Services } from "../services.ts";
import type { Auth } from "./auth.ts";
import type { ProofCache } from "./proof-cache.ts";
import type { SessionGuard } from "./session-guard.ts";

/** Who may call an app route: anyone (sign-in pages), any member of the session's org, or its owners. */
export type AppAccess = "public" | "member" | "owner";

declare module "fastify" {
  interface FastifyContextConfig {
    /** App API routes say who may call them; the scope's hook enforces it (default: member). */
    appAccess?: AppAccess;
  }
}

/** What the app API's route modules receive. */
export interface AppApiContext extends Services {
  auth: Auth;
  mailer: Mailer;
  /** Draws uploaded logos off the request path, each within a time limit. */
  logoRasterizer: LogoRasterizer;
  /** Proofs of draft cards, drawn once per card (see proof-cache.ts). */
  proofs: ProofCache;
  requireSession: SessionGuard;
  appLogger: Logger;
  /** HubSpot's connect flow; undefined when the operator configured no HubSpot app. */
  hubspotConnector: ConnectDeps | undefined;
}
