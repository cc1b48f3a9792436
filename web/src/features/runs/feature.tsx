import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/runs', lazy: async () => ({ Component: (await import('./pages/RunsPage')).RunsPage }) },
    { path: '/runs/:runId', lazy: async () => ({ Component: (await import('./pages/RunPage')).RunPage }) },
  ],
  nav: [{ to: '/runs', label: 'nav.runs', min: 'viewer', order: 30, section: 'main' }],
};
