import { ImageryUnavailableError } from "./home-imagery.ts";

const TIMEOUT_MS = 15_000;

/** GET with a timeout; network failures and 5xx/429 become ImageryUnavailableError. */
export async function imageryGet(url: string, what: string, signal?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (error) {
    throw new ImageryUnavailableError(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ImageryUnavailableError(`${what} answered HTTP ${response.status}`);
  }
  return response;
}

export async function imageBytes(response: Response, what: string): Promise<Buffer> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("image/")) {
    await response.body?.cancel();
    throw new ImageryUnavailableError(`${what} sent ${type || "no content type"}, not an image`);
  }
  return Buffer.from(await response.arrayBuffer());
}
