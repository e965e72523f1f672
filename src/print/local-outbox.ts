import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Clock } from "../clock.ts";
import type { PrintProvider, PrintRequest } from "./print-provider.ts";

export const outboxDir = (dataDir: string, pieceId: string) => path.join(dataDir, "outbox", pieceId);

const MANIFEST = "manifest.json";

/**
 * The small shop's printer: DATA_DIR/outbox/<piece id>/ gets front.pdf, back.pdf and a JSON
 * manifest (written last, so a folder with a manifest is complete). Writing the same piece again
 * finds the manifest and changes nothing: one folder per piece, however often it is retried.
 */
export function createLocalOutbox(deps: { dataDir: string; clock: Clock }): PrintProvider {
  return {
    name: "local",
    printsAddressBlock: true,
    async submit(request: PrintRequest) {
      const dir = outboxDir(deps.dataDir, request.pieceId);
      const manifestPath = path.join(dir, MANIFEST);
      const alreadyWritten = await access(manifestPath).then(
        () => true,
        () => false,
      );
      if (!alreadyWritten) {
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, "front.pdf"), request.frontPdf);
        await writeFile(path.join(dir, "back.pdf"), request.backPdf);
        const manifest = {
          piece_id: request.pieceId,
          org_id: request.orgId,
          size: request.size,
          description: request.description,
          to: request.to,
          landing_url: request.landingUrl,
          files: { front: "front.pdf", back: "back.pdf" },
          written_at: deps.clock.now().toISOString(),
        };
        await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      }
      return { providerId: request.pieceId, status: "mailed" as const };
    },
  };
}
