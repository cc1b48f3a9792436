import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { index: true, lazy: async () => ({ Component: (await import('./pages/DashboardPage')).DashboardPage }) },
  ],
  nav: [{ to: '/', label: 'nav.dashboard', min: 'viewer', order: 0, section: 'main' }],
};
