import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import type { AddressVerifier } from "../geo/address-verifier.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import { createAddressVerifier } from "../geo/verifiers.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import type { RegisteredJob } from "../jobs/job-kind.ts";
import { createPrintProvider } from "../print/index.ts";
import type { Renderer } from "../render/renderer.ts";
import { drawCardImagesHandler } from "./card-images-sweep.ts";
import { geocodePieceHandler, processPieceHandler, type SafetyGates } from "./process-piece.ts";

export interface PipelineJobDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  config: Config;
  geocoder: Geocoder;
  renderer: Renderer;
  imagery: HomeImagery;
  /** mail-safety's rules (mailSafetyGates), run before print. */
  safetyGates: SafetyGates;
  /** Default: the one ADDRESS_VERIFIER names. */
  addressVerifier?: AddressVerifier;
}

/** The campaign pipeline's job kinds (a piece's processing and geocoding, its waiting card drawn ahead), with the print and address verification adapters the config names. */
export function pipelineJobHandlers(deps: PipelineJobDeps): RegisteredJob[] {
  const pipeline = {
    ...deps,
    printProvider: createPrintProvider(deps.config, deps),
    addressVerifier: deps.addressVerifier ?? createAddressVerifier(deps.config),
    publicBaseUrl: deps.config.publicBaseUrl,
  };
  return [processPieceHandler(pipeline), geocodePieceHandler(pipeline), drawCardImagesHandler(pipeline)];
}
