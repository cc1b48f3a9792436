import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/audit', lazy: async () => ({ Component: (await import('./pages/AuditPage')).AuditPage }) },
  ],
  nav: [{ to: '/audit', label: 'nav.audit', min: 'admin', order: 120, section: 'admin' }],
};
