/** Snippets that use the address the page itself is served from, so they work as pasted. */
export function firstEventCurl(origin: string, eventType = "job.completed"): string {
  const body = {
    event_type: eventType,
    object_type: eventType.split(".")[0] ?? "job",
    dedup_id: "first-event-1",
    record: {
      id: "first-event-1",
      properties: {
        street: "742 Evergreen Terrace",
        city: "Springfield",
        state: "IL",
        zip: "62704",
        client_name: "Homer Simpson",
        status: "completed",
      },
    },
  };
  return [
    `curl -s -X POST ${origin}/api/v1/events \\`,
    `  -H 'Authorization: Bearer YOUR_API_KEY' -H 'content-type: application/json' \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join("\n");
}

export function mcpConfig(origin: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        porchlight: {
          type: "http",
          url: `${origin}/api/mcp`,
          headers: { Authorization: "Bearer YOUR_API_KEY" },
        },
      },
    },
    null,
    2,
  );
}

export function subscribeCurl(origin: string): string {
  return [
    `curl -s -X POST ${origin}/api/v1/webhooks/subscribe \\`,
    `  -H 'Authorization: Bearer YOUR_API_KEY' -H 'content-type: application/json' \\`,
    `  -d '{"target_url":"https://your-crm.example/hooks/porchlight"}'`,
  ].join("\n");
}
