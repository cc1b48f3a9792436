import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/users', lazy: async () => ({ Component: (await import('./pages/UsersPage')).UsersPage }) },
    { path: '/users/:userId', lazy: async () => ({ Component: (await import('./pages/UserPage')).UserPage }) },
  ],
  nav: [{ to: '/users', label: 'nav.users', min: 'admin', order: 100, section: 'admin' }],
};
