import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: '/api-keys', lazy: async () => ({ Component: (await import('./pages/ApiKeysPage')).ApiKeysPage }) },
  ],
  // listApiKeys and createApiKey are admin/admin in the contract: no one else has keys of their own to see.
  nav: [{ to: '/api-keys', label: 'nav.apiKeys', min: 'admin', order: 110, section: 'admin' }],
};
