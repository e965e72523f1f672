import { Type } from "@fastify/type-provider-typebox";

/** Error body of every endpoint (spec: Errors). */
export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: "Machine code or, on older endpoints, a sentence." }),
    detail: Type.Optional(
      Type.String({ description: "What was wrong, naming the field where there is one." }),
    ),
  },
  { title: "Error" },
);
