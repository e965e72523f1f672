import type { QueryClient } from "@tanstack/react-query";
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  type ErrorComponentProps,
  lazyRouteComponent,
  Outlet,
  redirect,
} from "@tanstack/react-router";
import type { ReactNode } from "react";
import { automationListQuery, automationQuery, proofQuery } from "../api/automations.ts";
import { importBatchQuery } from "../api/customers.ts";
import { ApiError } from "../api/errors.ts";
import { eventSamplesQuery, eventTypesQuery, newestSamplesFirst } from "../api/events.ts";
import type { LeadSource } from "../api/leads.ts";
import { forgetNewMark, leadQuery, leadsQuery, unopenedLeadsQuery } from "../api/leads.ts";
import {
  PIECE_STATUSES,
  type PieceFilters,
  pieceQuery,
  piecesQuery,
  preloadThumbnails,
  REACTIVATION_MAILINGS,
} from "../api/mail.ts";
import { approvalsQuery } from "../api/mail-safety.ts";
import { sourceJobRevenueQuery } from "../api/neighbours.ts";
import { organizationQuery } from "../api/organization.ts";
import { attentionQuery, firstStepsQuery, overviewQuery } from "../api/overview.ts";
import { revenueQuery } from "../api/revenue.ts";
import { sessionQuery } from "../api/session.ts";
import { formValuesOf, proofInputOf } from "../modules/automations/form-model.ts";
import { AppLayout } from "../pages/AppLayout.tsx";
import { InvitePage } from "../pages/Auth/InvitePage.tsx";
import { ForgotPasswordPage, ResetPasswordPage } from "../pages/Auth/PasswordResetPages.tsx";
import { SIGN_IN_REASONS, SignInPage, type SignInReason } from "../pages/Auth/SignInPage.tsx";
import { NotFoundPage } from "../pages/NotFoundPage.tsx";
import { AnchorLink } from "../ui/links.tsx";
import { LoadError, Loading, RecordLoadError } from "../ui/states.tsx";
import { DEVELOPER_TABS, type DeveloperTab, SETTINGS_TABS, type SettingsTab } from "./search.ts";

/**
 * The whole URL tree of the app, in one place (paths are under the /app/ base). Each screen's component is
 * loaded when its route is first visited (lazyRouteComponent), so the first screen downloads only the shell.
 * A screen's loader starts its reads (prefetchQuery, not awaited) so they travel while its code downloads.
 */
const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({
  component: Outlet,
  notFoundComponent: NotFoundPage,
});

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
const oneOf = <T extends string>(values: readonly T[], value: unknown, fallback: T): T =>
  values.includes(value as T) ? (value as T) : fallback;

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "sign-in",
  // `reason`: why the app sent the person here (the sign-in page says it), e.g. a save that found the session ended.
  validateSearch: (search: Record<string, unknown>): { redirect?: string; reason?: SignInReason } => ({
    redirect: text(search.redirect),
    reason: SIGN_IN_REASONS.find((reason) => reason === search.reason),
  }),
  component: SignInPage,
});

const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "forgot-password",
  component: ForgotPasswordPage,
});

const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "reset-password",
  validateSearch: (search: Record<string, unknown>): { token?: string } => ({ token: text(search.token) }),
  component: ResetPasswordPage,
});

const inviteRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "invite/$token",
  component: InvitePage,
});

const operatorRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "operator",
  component: lazyRouteComponent(() => import("../pages/Operator/OperatorPage.tsx"), "OperatorPage"),
});

/** Every screen of a contractor: only with a session (its organization decides what each call sees). */
const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "signed-in",
  beforeLoad: async ({ context, location, matches }) => {
    preloadScreenCode(matches);
    try {
      // The header's business name, loaded with the session so the header does not change under the eye;
      // asked for at the same time, as a signed-out answer is ignored and the session's 401 decides.
      const [session] = await Promise.all([
        context.queryClient.ensureQueryData(sessionQuery()),
        context.queryClient.ensureQueryData(organizationQuery()).catch(() => undefined),
      ]);
      return { session };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        throw redirect({ to: "/sign-in", search: { redirect: location.href } });
      }
      throw error;
    }
  },
  component: AppLayout,
});

/** A record's route whose loader failed: a missing record gets its own heading and the way back. */
const recordError =
  (notFound: string, back: ReactNode) =>
  ({ error, reset }: ErrorComponentProps) => (
    <RecordLoadError error={error} retry={reset} notFound={notFound} back={back} />
  );

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A link's id that cannot name any record is a record not found, as the server says of a well-formed
 * one: the server refuses it as a malformed request (`id: must match format "uuid"`).
 */
function ensureRecordId(id: string) {
  if (!UUID.test(id)) throw new ApiError(404, "not_found", "This no longer exists.");
}

const overviewRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/",
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(attentionQuery());
    void context.queryClient.prefetchQuery(eventTypesQuery());
    void context.queryClient.prefetchQuery(overviewQuery());
    void context.queryClient.prefetchQuery(firstStepsQuery());
    void context.queryClient.prefetchQuery(unopenedLeadsQuery());
  },
  component: lazyRouteComponent(() => import("../pages/Overview/OverviewPage.tsx"), "OverviewPage"),
});

const automationsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "automations",
  loader: ({ context }) => context.queryClient.ensureQueryData(automationListQuery()),
  component: lazyRouteComponent(() => import("../pages/Automations/AutomationsPage.tsx"), "AutomationsPage"),
});

const automationNewRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "automations/new",
  validateSearch: (search: Record<string, unknown>): { event_type?: string } => ({
    event_type: text(search.event_type),
  }),
  loader: ({ context }) => context.queryClient.ensureQueryData(eventTypesQuery()),
  component: lazyRouteComponent(
    () => import("../pages/Automations/AutomationBuilderPage.tsx"),
    "AutomationNewPage",
  ),
});

/** How long the builder's first render waits for its proof (a cached proof comes in ~15 ms, a new one ~100 ms). */
const PROOF_WAIT_MS = 150;

const automationEditRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "automations/$automationId",
  loader: async ({ context, params, preload }) => {
    const [automation] = await Promise.all([
      context.queryClient.ensureQueryData(automationQuery(params.automationId)),
      context.queryClient.ensureQueryData(eventTypesQuery()),
    ]);
    // The proof needs the newest sample of the trigger's type (a short read, waited for) and then its
    // drawing, asked for now so it travels while the form renders instead of after it has mounted.
    // Not for a link the pointer merely rests on: each proof is a card drawn on the server.
    const eventType = automation.trigger?.event_type?.trim();
    if (!eventType || preload) return;
    const samples = await context.queryClient.ensureQueryData(eventSamplesQuery(eventType)).catch(() => []);
    const values = { ...formValuesOf(automation), sample_id: newestSamplesFirst(samples)[0]?.id ?? "" };
    const proof = context.queryClient.prefetchQuery(proofQuery(proofInputOf(values)));
    // A proof that comes soon is in the first render: drawn after it, the card waited for a second
    // render once the first (a long task) had ended. One that takes longer does not hold the form.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise((resolve) => {
      timer = setTimeout(resolve, PROOF_WAIT_MS);
    });
    await Promise.race([proof, waited]).finally(() => clearTimeout(timer));
  },
  errorComponent: recordError(
    "This automation was not found",
    <AnchorLink to="/automations">Back to Automations</AnchorLink>,
  ),
  component: lazyRouteComponent(
    () => import("../pages/Automations/AutomationBuilderPage.tsx"),
    "AutomationEditPage",
  ),
});

const isoDate = (value: unknown) =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;

const mailRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "mail",
  // The filters live in the URL, so a filtered list can be bookmarked and shared.
  validateSearch: (search: Record<string, unknown>): Omit<PieceFilters, "cursor"> => ({
    automation_id: text(search.automation_id),
    mailing: search.mailing === REACTIVATION_MAILINGS ? REACTIVATION_MAILINGS : undefined,
    status: PIECE_STATUSES.find((status) => status === search.status),
    from: isoDate(search.from),
    to: isoDate(search.to),
  }),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps, preload }) => {
    // The first rows' thumbnails only on the way in, not for a link the pointer rests on.
    void context.queryClient
      .ensureQueryData(piecesQuery(deps))
      .then((page) => preload || preloadThumbnails(page))
      .catch(() => undefined);
    void context.queryClient.prefetchQuery(automationListQuery());
  },
  component: lazyRouteComponent(() => import("../pages/Mail/MailPage.tsx"), "MailPage"),
});
const pieceRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "mail/$pieceId",
  loader: ({ context, params }) => context.queryClient.ensureQueryData(pieceQuery(params.pieceId)),
  errorComponent: recordError(
    "This postcard was not found",
    <AnchorLink to="/mail">Back to Mail</AnchorLink>,
  ),
  component: lazyRouteComponent(() => import("../pages/Mail/PiecePage.tsx"), "PiecePage"),
});
const approvalsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "approvals",
  loader: ({ context }) => void context.queryClient.prefetchQuery(approvalsQuery()),
  component: lazyRouteComponent(() => import("../pages/Approvals/ApprovalsPage.tsx"), "ApprovalsPage"),
});
const leadsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "leads",
  validateSearch: (search: Record<string, unknown>): { source?: LeadSource } => ({
    source: search.source === "landing_page" || search.source === "crm_sync" ? search.source : undefined,
  }),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => void context.queryClient.prefetchQuery(leadsQuery(deps.source)),
  component: lazyRouteComponent(() => import("../pages/Leads/LeadsPage.tsx"), "LeadsPage"),
});
const leadRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "leads/$leadId",
  // Reading a lead marks it opened (no longer new): a link the pointer only rests on reads nothing.
  loader: async ({ context, params, preload }) => {
    if (preload) return;
    await context.queryClient.ensureQueryData(leadQuery(params.leadId));
    forgetNewMark(context.queryClient, params.leadId);
  },
  errorComponent: recordError("This lead was not found", <AnchorLink to="/leads">Back to Leads</AnchorLink>),
  component: lazyRouteComponent(() => import("../pages/Leads/LeadPage.tsx"), "LeadPage"),
});
const revenueRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "revenue",
  loader: ({ context }) => {
    void context.queryClient.prefetchQuery(revenueQuery());
    void context.queryClient.prefetchQuery(sourceJobRevenueQuery());
  },
  component: lazyRouteComponent(() => import("../pages/Revenue/RevenuePage.tsx"), "RevenuePage"),
});
const customersRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "customers",
  validateSearch: (search: Record<string, unknown>): { tab: "list" | "past-jobs" } => ({
    tab: search.tab === "past-jobs" ? "past-jobs" : "list",
  }),
  component: lazyRouteComponent(() => import("../pages/Customers/CustomersPage.tsx"), "CustomersPage"),
});
const customerBatchRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "customers/batches/$importId",
  loader: ({ context, params }) => {
    ensureRecordId(params.importId);
    return context.queryClient.ensureQueryData(importBatchQuery(params.importId));
  },
  errorComponent: recordError(
    "This import was not found",
    <AnchorLink to="/customers" search={{ tab: "list" }}>
      Back to Customers
    </AnchorLink>,
  ),
  component: lazyRouteComponent(() => import("../pages/Customers/BatchPage.tsx"), "BatchPage"),
});
const newMailingRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "customers/mailings/new",
  // The batches to mail from, comma-separated ids, so the page can be linked.
  validateSearch: (search: Record<string, unknown>): { batches: string } => ({
    batches: text(search.batches) ?? "",
  }),
  component: lazyRouteComponent(() => import("../pages/Customers/NewMailingPage.tsx"), "NewMailingPage"),
});

const developersRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "developers",
  validateSearch: (search: Record<string, unknown>): { tab: DeveloperTab; event_type?: string } => ({
    tab: oneOf(DEVELOPER_TABS, search.tab, "keys"),
    event_type: text(search.event_type),
  }),
  component: lazyRouteComponent(() => import("../pages/Developers/DevelopersPage.tsx"), "DevelopersPage"),
});

const settingsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "settings",
  // `hubspot`: how a HubSpot connect ended (its callback sends the owner back here with it).
  validateSearch: (search: Record<string, unknown>): { tab: SettingsTab; hubspot?: string } => ({
    tab: oneOf(SETTINGS_TABS, search.tab, "profile"),
    hubspot: text(search.hubspot),
  }),
  loader: ({ context }) => context.queryClient.ensureQueryData(organizationQuery()),
  component: lazyRouteComponent(() => import("../pages/Settings/SettingsPage.tsx"), "SettingsPage"),
});

const signedInScreens = [
  overviewRoute,
  automationsRoute,
  automationNewRoute,
  automationEditRoute,
  mailRoute,
  pieceRoute,
  approvalsRoute,
  leadsRoute,
  leadRoute,
  revenueRoute,
  customersRoute,
  customerBatchRoute,
  newMailingRoute,
  developersRoute,
  settingsRoute,
];

/**
 * Starts downloading the screen's code together with the session read: the router loads a child's
 * component only after its parent's beforeLoad, which made a first visit wait for the session and
 * then for the screen's chunk (Overview's holds the charts) one after the other.
 */
function preloadScreenCode(matches: readonly { routeId: string }[]) {
  for (const match of matches) {
    const screen = signedInScreens.find((route) => route.id === match.routeId);
    const component = screen?.options.component as { preload?: () => Promise<void> } | undefined;
    void component?.preload?.()?.catch(() => undefined);
  }
}

const routeTree = rootRoute.addChildren([
  signInRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  inviteRoute,
  operatorRoute,
  signedInRoute.addChildren(signedInScreens),
]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    basepath: "/app",
    context: { queryClient },
    defaultPreload: "intent",
    // The loaders fill the query cache; the components read the same queries.
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: () => <Loading />,
    defaultErrorComponent: ({ error, reset }) => <LoadError error={error} retry={reset} />,
  });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
