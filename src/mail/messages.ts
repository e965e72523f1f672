import type { MailMessage } from "./mailer.ts";

export function invitationMessage(input: {
  to: string;
  organizationName: string;
  role: "owner" | "member";
  inviteUrl: string;
  expiresAt: Date;
}): MailMessage {
  // The business name is the inviter's own text, sent from the service's address: quoted and said
  // to be theirs, so "Porchlight Security: your account is locked…" cannot pass for the service's words.
  const text = [
    `The business "${input.organizationName}" invites you to its Porchlight account as ${input.role === "owner" ? "an owner" : "a member"}.`,
    "Its name is written by the business itself, not by Porchlight. If you do not know it, ignore this message.",
    "",
    "Open this link to choose your name and password:",
    input.inviteUrl,
    "",
    `The link works until ${input.expiresAt.toUTCString()}.`,
  ].join("\n");
  return {
    to: input.to,
    subject: `Invitation to join ${input.organizationName} on Porchlight`,
    text,
    links: [input.inviteUrl],
  };
}

export function passwordResetMessage(input: {
  to: string;
  resetUrl: string;
  validMinutes: number;
  /** The business the account belongs to, by its display name; none when it belongs to none. */
  organizationName?: string | undefined;
}): MailMessage {
  const account = input.organizationName ? `${input.organizationName} account` : "account";
  const text = [
    `Someone asked to reset the password of your ${account} on Porchlight.`,
    "",
    "Open this link to choose a new password:",
    input.resetUrl,
    "",
    `The link works for ${input.validMinutes} minutes. If you did not ask, ignore this message.`,
  ].join("\n");
  const subject = input.organizationName
    ? `Reset your password for ${input.organizationName} on Porchlight`
    : "Reset your Porchlight password";
  return { to: input.to, subject, text, links: [input.resetUrl] };
}
