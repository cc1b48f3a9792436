import type { Handler } from '../types.js';
import { channelView } from '../channel-views.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels' | 'gitops'>;

/** GET /channels: ordered by name, with health; secret settings read as {configured: true}. */
export const listChannels = (d: Deps): Handler<'listChannels'> => async (req) => {
  const p = await d.channels.list(pageQuery(req.query));
  return { status: 200, body: { ...p, items: await d.gitops.withManagement('channel', p.items.map((c) => channelView(c, d.channels.settingsView(c)))) } };
};
