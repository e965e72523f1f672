// A test reporter that lists every failed test once more at the end of the run, with its file and
// error: CI shows only the tail of a long TAP log, where a failure among 1,700 tests is otherwise lost.
export default async function* failuresReporter(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    // A suite fails because a test inside it did; the test itself is the one worth naming.
    if (error?.failureType === "subtestsFailed") continue;
    const cause = error?.cause ?? error;
    failures.push(
      `${file ?? "?"}: ${name}\n    ${String(cause?.message ?? cause)
        .split("\n")
        .slice(0, 6)
        .join("\n    ")}`,
    );
  }
  if (failures.length === 0) return;
  yield `\n# ${failures.length} failed:\n`;
  for (const failure of failures) yield `# ${failure.replaceAll("\n", "\n# ")}\n`;
}
