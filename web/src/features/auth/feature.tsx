import type { Feature } from '../../app/feature';

/**
 * The pages before the app: setup, sign-in (every method), "forgot password", and the steps the
 * server may ask for right after a sign-in (a new password, a second factor). The emailed reset
 * link opens /reset-password, a standalone page the server serves itself.
 */
export const feature: Feature = {
  publicRoutes: [
    { path: '/setup', lazy: async () => ({ Component: (await import('./pages/SetupPage')).SetupPage }) },
    { path: '/sign-in', lazy: async () => ({ Component: (await import('./pages/SignInPage')).SignInPage }) },
    { path: '/forgot-password', lazy: async () => ({ Component: (await import('./pages/ForgotPasswordPage')).ForgotPasswordPage }) },
    { path: '/change-password', lazy: async () => ({ Component: (await import('./pages/ChangePasswordPage')).ChangePasswordPage }) },
    { path: '/enrol-second-factor', lazy: async () => ({ Component: (await import('./pages/EnrolSecondFactorPage')).EnrolSecondFactorPage }) },
  ],
};
