import type { Feature } from '../../app/feature';
import { NotificationsBell } from './components/NotificationsBell';

export const feature: Feature = {
  routes: [
    { path: '/notifications', lazy: async () => ({ Component: (await import('./pages/NotificationsPage')).NotificationsPage }) },
  ],
  nav: [{ to: '/notifications', label: 'nav.notifications', min: 'viewer', order: 90, section: 'main' }],
  header: [{ order: 10, component: NotificationsBell }],
};
