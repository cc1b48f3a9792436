import type { Handler } from '../types.js';
import { CHANNEL_VIEW, channelView, channelPluginsRevision } from '../channel-views.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownPage, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'channels' | 'gitops' | 'stamps' | 'plugins' | 'answers'>;

/** GET /channels: ordered by name, with health; secret settings read as {configured: true}. */
export const listChannels = (d: Deps): Handler<'listChannels'> => async (req) => {
  const q = pageQuery(req.query);
  return stampedRead(req.headers['if-none-match'], ['listChannels', CHANNEL_VIEW, channelPluginsRevision(d.plugins), callerOf(req.ctx), q.limit, q.cursor],
    () => d.stamps.page('channel', q), async () => {
      const p = await d.channels.list(q);
      return { ...p, items: await d.gitops.withManagement('channel', p.items.map((c) => channelView(c, d.channels.settingsView(c)))) };
    }, shownPage, d.answers);
};
