import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { createLobProvider } from "./lob.ts";
import { createLocalOutbox } from "./local-outbox.ts";
import type { PrintProvider } from "./print-provider.ts";

export type PrintConfig = Pick<Config, "printProvider" | "lobApiKey" | "lobBaseUrl" | "dataDir">;

/** The adapter PRINT_PROVIDER names (config validation guarantees LOB_API_KEY for `lob`). */
export function createPrintProvider(config: PrintConfig, deps: { clock: Clock }): PrintProvider {
  if (config.printProvider === "lob") {
    return createLobProvider({ apiKey: config.lobApiKey!, baseUrl: config.lobBaseUrl });
  }
  return createLocalOutbox({ dataDir: config.dataDir, clock: deps.clock });
}
