import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/links', lazy: async () => ({ Component: (await import('./pages/LinksPage')).LinksPage }) },
  ],
  nav: [{ to: '/links', label: 'nav.links', min: 'viewer', order: 35, section: 'main' }],
};
