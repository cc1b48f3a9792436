import type { Handler } from '../types.js';
import { CHANNEL_VIEW, channelView, channelPluginsRevision } from '../channel-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownOne, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'channels' | 'gitops' | 'stamps' | 'plugins' | 'answers'>;

export const getChannel = (d: Deps): Handler<'getChannel'> => async (req) => {
  const id = req.params.channelId;
  return stampedRead(req.headers['if-none-match'], ['getChannel', CHANNEL_VIEW, channelPluginsRevision(d.plugins), callerOf(req.ctx), id],
    () => d.stamps.one('channel', id), async () => {
      const c = await d.channels.get(id);
      return { ...channelView(c, d.channels.settingsView(c)), ...(await d.gitops.managementOf('channel', c.id)) };
    }, shownOne, d.answers);
};
