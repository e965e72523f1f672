import { Type } from "@fastify/type-provider-typebox";
import { OneLineText } from "../domain/one-line-text.ts";

export const MemberRoleSchema = Type.Union([Type.Literal("owner"), Type.Literal("member")]);

export const SessionView = Type.Object(
  {
    user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
    organization: Type.Object({ id: Type.String({ format: "uuid" }), name: Type.String() }),
    role: MemberRoleSchema,
  },
  { additionalProperties: false },
);

export const EmailSchema = Type.String({ format: "email", maxLength: 254 });
export const PersonNameSchema = OneLineText({ minLength: 1, maxLength: 100 });
