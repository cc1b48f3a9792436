import { Navigate } from 'react-router';
import type { Feature } from '../../app/feature';

/** Configuration as code: export, import with a plan, the configuration directory, managed resources. Admins only. */
export const feature: Feature = {
  routes: [
    { path: 'config', element: <Navigate to="/config/resources" replace /> },
    { path: 'config/:section', lazy: async () => ({ Component: (await import('./pages/ConfigPage')).ConfigPage }) },
  ],
  nav: [{ to: '/config', label: 'nav.config', min: 'admin', order: 980, section: 'admin' }],
};
