import { Button, Code, CopyButton, Stack } from "@mantine/core";

/** A snippet to paste, with a button that copies it. */
export function CodeSnippet({ code, label }: { code: string; label: string }) {
  return (
    <Stack gap={6} align="flex-start" w="100%">
      <Code
        block
        w="100%"
        style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}
        aria-label={label}
        tabIndex={0}
      >
        {code}
      </Code>
      <CopyButton value={code}>
        {({ copied, copy }) => (
          <Button size="xs" variant="default" onClick={copy}>
            {copied ? "Copied" : `Copy ${inSentence(label)}`}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}

/** A label inside a sentence: its first word lowercased, unless it is an acronym ("MCP configuration"). */
const inSentence = (label: string) =>
  /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
