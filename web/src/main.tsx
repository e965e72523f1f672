import "./ui/mantine-styles.ts";
import "@mantine/notifications/styles.css";
import { MantineProvider } from "@mantine/core";
import { Notifications, notifications } from "@mantine/notifications";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { type CSSProperties, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiError, errorMessage } from "./api/errors.ts";
import { createAppRouter } from "./routes/tree.tsx";
import { cssVariablesResolver, HEADER_HEIGHT, styleNonce, theme } from "./ui/theme.ts";
import "./ui/toasts.css";

/**
 * Pages a person without a session is meant to be on (the operator console has its own token). A
 * read of the page left behind that fails there must not lead to sign-in again: that lost the
 * sign-in page's own reason ("Your session ended…") and its way back (redirect=/app/sign-in).
 */
const SIGNED_OUT_PAGES = [
  "/app/sign-in",
  "/app/forgot-password",
  "/app/reset-password",
  "/app/invite/",
  "/app/operator",
];

const onSignedOutPage = () => SIGNED_OUT_PAGES.some((page) => window.location.pathname.startsWith(page));

const queryClient = new QueryClient({
  queryCache: new QueryCache({
    // A session that ends while the app is open (expiry, sign-out elsewhere) leads back to sign-in.
    // Not a contractor leaving a page: an open builder's "Leave without saving?" is not asked (its
    // edits could not be saved without a session anyway), as a loader's redirect to sign-in is not.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 401 && !onSignedOutPage()) {
        void router.navigate({
          to: "/sign-in",
          search: { redirect: window.location.pathname },
          ignoreBlocker: true,
        });
      }
    },
  }),
  // One place shows a failed change; forms additionally put field errors on their fields.
  mutationCache: new MutationCache({
    onError: (error, _variables, _context, mutation) => {
      if (mutation.meta?.quiet) return;
      // A caller that leads to sign-in on a 401 (the builder's save) says why there instead.
      if (mutation.meta?.signsInOnSessionEnd && error instanceof ApiError && error.status === 401) return;
      // A form that puts a refusal on its fields says it there once; the toast would repeat it.
      const onFields = error instanceof ApiError && Object.keys(error.fieldErrors()).length > 0;
      if (mutation.meta?.refusalsOnFields && onFields) return;
      notifications.show({ color: "red", title: "That did not work", message: errorMessage(error) });
    },
  }),
  defaultOptions: {
    queries: {
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: false,
      // A screen's route loader reads its data as the screen's code loads; the screen's own queries,
      // mounting a moment later, take that answer instead of reading everything again (Overview
      // read three of its five twice on a first visit). Changes invalidate what they touch at once.
      staleTime: 2_000,
    },
  },
});

const router = createAppRouter(queryClient);
// The first screen's loaders start now, before React's first render of the shell (~50 ms on a
// 2-core machine), rather than from the router's mount effect after it; the mount then finds the
// load under way and does not start another.
router.load().catch((error: unknown) => console.error(error));

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root");
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} getStyleNonce={styleNonce}>
      <Notifications
        position="bottom-right"
        className="toasts"
        style={{ "--header-height": `${HEADER_HEIGHT}px` } as CSSProperties}
      />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
