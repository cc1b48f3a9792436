import { Navigate } from 'react-router';
import type { Feature } from '../../app/feature';

/** Settings: workspace policies, single sign-on, the AI assistant, system alerts, storage, about. Admins only. */
export const feature: Feature = {
  routes: [
    { path: 'settings', element: <Navigate to="/settings/workspace" replace /> },
    { path: 'settings/problems/:problemId', lazy: async () => ({ Component: (await import('./pages/ProblemPage')).ProblemPage }) },
    { path: 'settings/:section', lazy: async () => ({ Component: (await import('./pages/SettingsPage')).SettingsPage }) },
  ],
  nav: [{ to: '/settings', label: 'nav.settings', min: 'admin', order: 990, section: 'admin' }],
};
