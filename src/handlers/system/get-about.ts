import type { Handler } from '../types.js';

export interface AboutInfo {
  version: string;
  startedAt: Date;
  roles: Array<'api' | 'scheduler' | 'worker'>;
}

export const getAbout = (deps: { about: AboutInfo }): Handler<'getAbout'> => async () => ({
  status: 200,
  body: {
    name: 'Herald',
    version: deps.about.version,
    // This instance makes no outbound update check, so the latest release is unknown.
    latest_release: null,
    started_at: deps.about.startedAt.toISOString(),
    roles: deps.about.roles,
  },
});
