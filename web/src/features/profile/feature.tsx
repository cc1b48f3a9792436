import type { Feature } from '../../app/feature';

/** The profile (/profile), linked from the user menu in the header; no navigation entry. */
export const feature: Feature = {
  routes: [
    { path: '/profile', lazy: async () => ({ Component: (await import('./pages/ProfilePage')).ProfilePage }) },
  ],
};
