import type { Feature } from '../../app/feature';

// Everyone signed in reads connections (GET /connections is viewer/read); only admins change them.
export const feature: Feature = {
  routes: [
    { path: 'connections', lazy: async () => ({ Component: (await import('./pages/ConnectionsPage')).ConnectionsPage }) },
    { path: 'connections/new', lazy: async () => ({ Component: (await import('./pages/ConnectionPage')).NewConnectionPage }) },
    { path: 'connections/:connectionId', lazy: async () => ({ Component: (await import('./pages/ConnectionPage')).ConnectionPage }) },
  ],
  nav: [{ to: '/connections', label: 'nav.connections', min: 'viewer', order: 38, section: 'main' }],
};
