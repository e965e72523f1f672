/**
 * The builder's Event type field's words. A type the CRM has not sent while it sends others is said
 * at once: an automation saved on "job.complete" while the CRM sends "job.completed" mailed nothing,
 * and nothing said why (walk, 2026-12-07).
 */
export function eventTypeDescription(typed: string, received: readonly string[]): string {
  const type = typed.trim();
  if (!type || received.length === 0 || received.includes(type))
    return "What your CRM sent, newest first. You may type a type not seen yet.";
  const sent = received.slice(0, 3).join(", ");
  return `Your CRM has not sent a "${type}" event yet, so this automation mails nothing until one arrives. It has sent: ${sent}${received.length > 3 ? ", …" : ""}.`;
}
