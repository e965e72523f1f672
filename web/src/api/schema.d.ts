/**
 * DRAFT written by hand from /work/coord/app-contract.md until `npm run app:client` generates this file
 * from the app API's OpenAPI document (it then replaces this file whole).
 */
type Json<T> = { content: { "application/json": T } };
type Op<Res, Body = never, Path = never, Query = never> = {
  parameters: ([Query] extends [never] ? { query?: never } : { query?: Query }) & {
    header?: never;
    cookie?: never;
  } & ([Path] extends [never] ? { path?: never } : { path: Path });
  responses: {
    200: Json<Res>;
    201: Json<Res>;
    204: { content?: never };
    default: Json<components["schemas"]["AppError"]>;
  };
} & ([Body] extends [never] ? { requestBody?: never } : { requestBody: Json<Body> });
type Id = { id: string };

export interface components {
  schemas: {
    AppError: { error: { code: string; message: string; details?: unknown } };
    Session: {
      user: { id: string; name: string; email: string };
      organization: { id: string; name: string };
      role: "owner" | "member";
    };
    Invitation: { email: string; organization_name: string; role: "owner" | "member"; expires_at: string };
    Filter:
      | { property: string; op: "eq" | "neq" | "contains"; value: string }
      | { property: string; op: "in" | "not_in"; value: string[] }
      | { property: string; op: "exists" | "not_exists" }
      | { property: string; op: "gt" | "gte" | "lt" | "lte"; value: number };
    Template: { headline: string; message: string; offer: string; card_size: "4x6" | "6x9" | "6x11" };
    Trigger: { type: "custom_api"; event_type: string; object_type?: "job" | "deal" | "contact" };
    AutomationDraft: {
      name: string;
      enabled?: boolean;
      kind?: "standard" | "deal_won";
      trigger?: components["schemas"]["Trigger"] | null;
      filters?: components["schemas"]["Filter"][];
      template?: components["schemas"]["Template"];
    };
    Automation: {
      id: string;
      name: string;
      enabled: boolean;
      kind: "standard" | "deal_won";
      trigger: components["schemas"]["Trigger"] | null;
      filters: components["schemas"]["Filter"][];
      template: components["schemas"]["Template"];
      cards_this_month: number;
    };
    EventType: {
      event_type: string;
      object_type: string | null;
      last_seen_at: string;
      count: number;
      bound: boolean;
    };
    EventSample: {
      id: string;
      event_type: string;
      object_type: string | null;
      received_at: string;
      record: { id?: string; properties: Record<string, string> };
      property_keys: string[];
    };
    ApiKey: {
      id: string;
      name: string | null;
      scopes: string[] | null;
      created_at: string;
      expires_at: string | null;
      last_used_at: string | null;
    };
    Subscription: { id: string; target_url: string; created_at: string; last_delivery_status: string | null };
    Delivery: {
      id: string;
      attempted_at: string;
      status_code: number | null;
      attempt: number;
      outcome: string;
    };
    Organization: {
      id: string;
      name: string;
      business_name: string;
      phone: string | null;
      website: string | null;
      return_address: { street: string; city: string; state: string; postal_code: string } | null;
      brand_color: string | null;
      cost_per_card_cents: number | null;
      offer: string | null;
      has_logo: boolean;
    };
    Member: { id: string; name: string; email: string; role: "owner" | "member" };
    PendingInvitation: { id: string; email: string; role: "owner" | "member"; expires_at: string };
    Piece: {
      id: string;
      status: string;
      created_at: string;
      automation_name: string | null;
      address: string | null;
    };
    AttentionItem: { kind: string; message: string; event_type?: string };
  };
}
type S = components["schemas"];

export interface paths {
  "/app/api/v1/session": { get: Op<S["Session"]> };
  "/app/api/v1/invitations/{token}": { get: Op<S["Invitation"], never, { token: string }> };
  "/app/api/v1/invitations/{token}/accept": {
    post: Op<S["Session"], { name: string; password: string }, { token: string }>;
  };
  "/app/api/v1/automations": {
    get: Op<{ automations: S["Automation"][] }>;
    post: Op<S["Automation"], S["AutomationDraft"]>;
  };
  "/app/api/v1/automations/{id}": {
    get: Op<S["Automation"], never, Id>;
    patch: Op<S["Automation"], Partial<S["AutomationDraft"]>, Id>;
  };
  "/app/api/v1/automations/dry-run": {
    post: Op<
      {
        outcome: "queued" | "filtered_out" | "no_address" | string;
        failing_filter?: S["Filter"];
        merge_preview?: { headline: string; message: string };
      },
      { automation: S["AutomationDraft"]; sample_id: string }
    >;
  };
  "/app/api/v1/proofs": {
    post: Op<
      { front_png: string; back_png: string },
      { template: S["Template"]; card_size: string; sample_id?: string }
    >;
  };
  "/app/api/v1/event-types": { get: Op<{ event_types: S["EventType"][] }> };
  "/app/api/v1/event-samples": {
    get: Op<{ samples: S["EventSample"][] }, never, never, { event_type?: string }>;
  };
  "/app/api/v1/keys": {
    get: Op<{ keys: S["ApiKey"][] }>;
    post: Op<S["ApiKey"] & { key: string }, { name: string; scopes: string[] | null; expires_at?: string }>;
  };
  "/app/api/v1/keys/{id}": { delete: Op<never, never, Id> };
  "/app/api/v1/subscriptions": { get: Op<{ subscriptions: S["Subscription"][] }> };
  "/app/api/v1/subscriptions/{id}/deliveries": { get: Op<{ deliveries: S["Delivery"][] }, never, Id> };
  "/app/api/v1/organization": {
    get: Op<S["Organization"]>;
    patch: Op<S["Organization"], Partial<Omit<S["Organization"], "id" | "name" | "has_logo">>>;
  };
  "/app/api/v1/organization/logo": { put: Op<S["Organization"], Blob> };
  "/app/api/v1/team": { get: Op<{ members: S["Member"][]; invitations: S["PendingInvitation"][] }> };
  "/app/api/v1/team/invitations": {
    post: Op<S["PendingInvitation"], { email: string; role: "owner" | "member" }>;
  };
  "/app/api/v1/team/members/{id}": {
    patch: Op<S["Member"], { role: "owner" | "member" }, Id>;
    delete: Op<never, never, Id>;
  };
  "/app/api/v1/me": { patch: Op<S["Session"]["user"], { name: string }> };
  "/app/api/v1/me/password": { post: Op<never, { current_password: string; new_password: string }> };
  "/app/api/v1/pieces": {
    get: Op<{ pieces: S["Piece"][]; next_cursor: string | null }, never, never, { cursor?: string }>;
  };
  "/app/api/v1/attention": { get: Op<{ items: S["AttentionItem"][] }> };
}
