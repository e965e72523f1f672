import { Anchor, Stack, Text } from "@mantine/core";
import { CodeSnippet } from "./CodeSnippet.tsx";
import { mcpConfig } from "./snippets.ts";

export function McpPanel() {
  const origin = window.location.origin;
  return (
    <Stack>
      <Text size="sm">
        AI assistants that speak the Model Context Protocol can send events, list leads and report won deals
        with one of your API keys. An event an assistant sends is a test run that mails nothing unless it says
        so in words (dry_run: false), so ask it to mail only when you mean it. Add this to the assistant's MCP
        configuration and replace YOUR_API_KEY:
      </Text>
      <CodeSnippet label="MCP configuration" code={mcpConfig(origin)} />
      <Text size="sm">
        Every endpoint is described in the <Anchor href="/docs">API reference</Anchor>.
      </Text>
    </Stack>
  );
}
