import { type Static, Type } from "@fastify/type-provider-typebox";

/*
 * What HubSpot sends and answers, as its public documentation describes it (docs/hubspot.md cites
 * each page). Extra fields are allowed everywhere: HubSpot adds fields without notice.
 */

const Id = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: "^[0-9]{1,20}$" })]);

/**
 * One event of a webhook request (HubSpot sends up to 100 in one JSON array). `propertyName` and
 * `propertyValue` come with `*.propertyChange` subscriptions only.
 */
export const HubSpotWebhookEvent = Type.Object({
  eventId: Id,
  portalId: Id,
  objectId: Id,
  subscriptionType: Type.String({ minLength: 1, maxLength: 100 }),
  // Milliseconds since 1970, within what a Date holds (8.64e15): beyond it the element is not a CRM event.
  occurredAt: Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 }),
  propertyName: Type.Optional(Type.String({ maxLength: 200 })),
  propertyValue: Type.Optional(Type.String({ maxLength: 10_000 })),
  attemptNumber: Type.Optional(Type.Integer()),
  subscriptionId: Type.Optional(Type.Integer()),
  appId: Type.Optional(Type.Integer()),
  changeSource: Type.Optional(Type.String()),
});
export type HubSpotWebhookEvent = Static<typeof HubSpotWebhookEvent>;

/** POST /oauth/v1/token, for both the authorization_code and the refresh_token grant. */
export const HubSpotTokenResponse = Type.Object({
  access_token: Type.String({ minLength: 1, maxLength: 4096 }),
  refresh_token: Type.String({ minLength: 1, maxLength: 4096 }),
  expires_in: Type.Integer({ minimum: 1 }),
  token_type: Type.Optional(Type.String()),
});
export type HubSpotTokenResponse = Static<typeof HubSpotTokenResponse>;

/** GET /oauth/v1/access-tokens/{token}: the portal (hub_id) the token belongs to. */
export const HubSpotAccessTokenInfo = Type.Object({
  hub_id: Id,
  token: Type.Optional(Type.String()),
  user: Type.Optional(Type.String()),
  hub_domain: Type.Optional(Type.String()),
  scopes: Type.Optional(Type.Array(Type.String())),
  app_id: Type.Optional(Type.Integer()),
  expires_in: Type.Optional(Type.Integer()),
  token_type: Type.Optional(Type.String()),
});
export type HubSpotAccessTokenInfo = Static<typeof HubSpotAccessTokenInfo>;

const AssociationList = Type.Object({
  results: Type.Array(Type.Object({ id: Type.String(), type: Type.Optional(Type.String()) })),
});

/** GET /crm/v3/objects/{type}/{id}?properties=…&associations=…: a deal, contact or company. */
export const HubSpotCrmObject = Type.Object({
  id: Type.String(),
  properties: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])),
  associations: Type.Optional(Type.Record(Type.String(), AssociationList)),
});
export type HubSpotCrmObject = Static<typeof HubSpotCrmObject>;
