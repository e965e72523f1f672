/** What every call to Lob's API shares: its Basic authorization and how its error answers read. */

/** Lob takes the API key as a Basic username with no password. */
export const lobAuthorization = (apiKey: string) => `Basic ${Buffer.from(`${apiKey}:`).toString("base64")}`;

/** The message of a Lob error answer (`{error: {message}}`), else the start of its body or status. */
export async function lobErrorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } };
    if (parsed.error?.message) return parsed.error.message;
  } catch {
    // not JSON: the status says enough
  }
  return text.slice(0, 200) || response.statusText;
}
