import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: 'reports', lazy: async () => ({ Component: (await import('./pages/ReportsPage')).ReportsPage }) },
    { path: 'reports/new', lazy: async () => ({ Component: (await import('./pages/ReportPage')).NewReportPage }) },
    { path: 'reports/:reportId', lazy: async () => ({ Component: (await import('./pages/ReportPage')).ReportPage }) },
  ],
  nav: [{ to: '/reports', label: 'nav.reports', min: 'viewer', order: 20, section: 'main' }],
};
