/**
 * For a field in a row lined up at its foot (`<Group align="flex-end">`, e.g. a field beside its
 * button): its error is said between the label (and description) and the input, so a refusal grows
 * the field above its input and the row's inputs and button stay on one line. Under the input, it
 * pushed the field's neighbours below it.
 */
export const ERROR_ABOVE_INPUT: ("label" | "description" | "error" | "input")[] = [
  "label",
  "description",
  "error",
  "input",
];
