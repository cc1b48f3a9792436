import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/queries', lazy: async () => ({ Component: (await import('./pages/QueriesPage')).QueriesPage }) },
    { path: '/queries/new', lazy: async () => ({ Component: (await import('./pages/QueryPage')).NewQueryPage }) },
    { path: '/queries/:queryId', lazy: async () => ({ Component: (await import('./pages/QueryPage')).QueryPage }) },
    { path: '/queries/:queryId/versions', lazy: async () => ({ Component: (await import('./pages/QueryVersionsPage')).QueryVersionsPage }) },
  ],
  nav: [{ to: '/queries', label: 'nav.queries', min: 'viewer', order: 10, section: 'main' }],
};
