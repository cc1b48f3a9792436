import type { Feature } from '../../app/feature';

export const feature: Feature = {
  routes: [
    { path: 'channels', lazy: async () => ({ Component: (await import('./pages/ChannelsPage')).ChannelsPage }) },
    { path: 'channels/new', lazy: async () => ({ Component: (await import('./pages/NewChannelPage')).NewChannelPage }) },
    { path: 'channels/:channelId', lazy: async () => ({ Component: (await import('./pages/ChannelPage')).ChannelPage }) },
  ],
  // Viewers may read channels (GET /channels is viewer/read); only admins change them.
  nav: [{ to: '/channels', label: 'nav.channels', min: 'viewer', order: 40, section: 'main' }],
};
