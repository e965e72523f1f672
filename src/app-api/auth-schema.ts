// Drizzle tables handed to Better Auth's drizzle adapter, mirroring migrations/0140_accounts.sql.
// The keys of AUTH_TABLES are Better Auth's model names; the property names are its field names,
// the column names ours. `organization` is the service's own organizations table: Better Auth
// reads and writes only the columns listed here.
import { bigint, boolean, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const authUsers = pgTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const authSessions = pgTable("user_sessions", {
  id: text("id").primaryKey(),
  token: text("token").notNull(),
  userId: text("user_id").notNull(),
  expiresAt: ts("expires_at").notNull(),
  ipAddress: text("ip_address"),
  userAgent: text("user_agent"),
  activeOrganizationId: uuid("active_org_id"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const authAccounts = pgTable("user_accounts", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull(),
  accountId: text("account_id").notNull(),
  providerId: text("provider_id").notNull(),
  accessToken: text("access_token"),
  refreshToken: text("refresh_token"),
  idToken: text("id_token"),
  accessTokenExpiresAt: ts("access_token_expires_at"),
  refreshTokenExpiresAt: ts("refresh_token_expires_at"),
  scope: text("scope"),
  password: text("password"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const authVerifications = pgTable("auth_verifications", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const authRateLimits = pgTable("auth_rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull(),
  count: integer("count").notNull(),
  lastRequest: bigint("last_request", { mode: "number" }).notNull(),
});

/** The service's organizations table as Better Auth's organization model sees it. */
export const authOrganizations = pgTable("organizations", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug"),
  logo: text("logo"),
  metadata: text("metadata"),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const orgMembers = pgTable("org_members", {
  organizationId: uuid("org_id").notNull(),
  id: text("id").primaryKey(),
  userId: text("user_id").notNull(),
  role: text("role").$type<"owner" | "member">().notNull().default("member"),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const orgInvitations = pgTable("org_invitations", {
  organizationId: uuid("org_id").notNull(),
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  role: text("role").$type<"owner" | "member">().notNull().default("member"),
  status: text("status").notNull().default("pending"),
  expiresAt: ts("expires_at").notNull(),
  inviterId: text("inviter_id"),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const AUTH_TABLES = {
  user: authUsers,
  session: authSessions,
  account: authAccounts,
  verification: authVerifications,
  rateLimit: authRateLimits,
  organization: authOrganizations,
  member: orgMembers,
  invitation: orgInvitations,
};
