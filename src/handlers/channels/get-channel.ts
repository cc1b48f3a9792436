import type { Handler } from '../types.js';
import { channelView } from '../channel-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels' | 'gitops'>;

export const getChannel = (d: Deps): Handler<'getChannel'> => async (req) => {
  const c = await d.channels.get(req.params.channelId);
  return { status: 200, body: { ...channelView(c, d.channels.settingsView(c)), ...(await d.gitops.managementOf('channel', c.id)) } };
};
