import type { Feature } from '../../app/feature';

export const feature: Feature = {
  publicRoutes: [
    { path: '/setup', lazy: async () => ({ Component: (await import('./pages/SetupPage')).SetupPage }) },
    { path: '/sign-in', lazy: async () => ({ Component: (await import('./pages/SignInPage')).SignInPage }) },
  ],
};
