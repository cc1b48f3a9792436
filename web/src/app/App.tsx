/**
 * The providers (theme, texts in the user's language and zone, the query cache) and the one
 * route table: public pages, then the signed-in shell with every feature's pages.
 */
import { useMemo } from 'react';
import { MantineProvider, Modal, Notification, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryCache, QueryClient, QueryClientProvider, MutationCache } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider, type RouteObject } from 'react-router';
import { isUnauthenticated, problemCode } from '../api/client';
import { keys } from '../api/keys';
import { useMe } from '../api/session';
import { I18nProvider, languageOf, translator } from '../i18n';
import { features } from './feature';
import { RequireSession } from './RequireSession';
import { Shell } from './Shell';
import { RouteError, NotFound } from './RouteError';
import { SESSION_ENDED } from '../api/session';

/**
 * A 401 anywhere means the session ended: forget the user; RequireSession leads to sign-in and back.
 * A 403 asking for a second factor (the workspace requires one) leads to its enrolment and back.
 */
function onError(error: unknown): void {
  if (isUnauthenticated(error) && queryClient.getQueryData(keys.me)) {
    sessionStorage.setItem(SESSION_ENDED, '1');
    queryClient.setQueryData(keys.me, null);
  }
  if (problemCode(error) === 'auth.second_factor_enrolment_required' && window.location.pathname !== ENROL) {
    const next = `${window.location.pathname}${window.location.search}`;
    void router.navigate(`${ENROL}?next=${encodeURIComponent(next)}`, { replace: true });
  }
}
const ENROL = '/enrol-second-factor';

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: { retry: (count, error) => !isUnauthenticated(error) && count < 1, refetchOnWindowFocus: true, staleTime: 10_000 },
  },
});

const routes: RouteObject[] = [
  ...features.flatMap((f) => f.publicRoutes ?? []).map((r) => ({ ...r, errorElement: <RouteError /> })),
  {
    element: <RequireSession><Shell /></RequireSession>,
    errorElement: <RouteError />,
    children: [...features.flatMap((f) => f.routes ?? []), { path: '*', element: <NotFound /> }],
  },
];

const router = createBrowserRouter(routes);

const nonce = () => document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
// The dialogs' scroll lock (react-remove-scroll, through Mantine's Modal) writes a <style> element
// with the nonce that get-nonce finds in the global __webpack_nonce__; without it the policy blocks
// the style (a console error on every dialog, and the page behind it scrolls).
(globalThis as { __webpack_nonce__?: string }).__webpack_nonce__ = nonce() || undefined;
/** The theme, with the close buttons Mantine draws (notifications, dialogs) named in the user's language. */
function themeFor(language: string) {
  const close = { 'aria-label': translator(language)('app.close') };
  return createTheme({
    primaryColor: 'indigo',
    primaryShade: { light: 8, dark: 8 },
    // A user who asked their system for less motion gets dialogs and menus without their fades.
    respectReducedMotion: true,
    components: {
      Notification: Notification.extend({ defaultProps: { closeButtonProps: close } }),
      Modal: Modal.extend({ defaultProps: { closeButtonProps: close } }),
    },
  });
}

function WithUser() {
  const me = useMe();
  const prefs = me.data?.preferences;
  const scheme = prefs?.theme === 'dark' || prefs?.theme === 'light' ? prefs.theme : 'auto';
  const language = languageOf(prefs?.locale);
  const theme = useMemo(() => themeFor(language), [language]);
  return (
    <MantineProvider theme={theme} getStyleNonce={nonce} forceColorScheme={scheme === 'auto' ? undefined : scheme}>
      <I18nProvider locale={prefs?.locale} timeZone={prefs?.timezone}>
        <Notifications position="top-right" />
        <RouterProvider router={router} />
      </I18nProvider>
    </MantineProvider>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <WithUser />
    </QueryClientProvider>
  );
}
