import type { Handler } from '../types.js';
import { channelView } from '../channel-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels'>;

export const updateChannel = (d: Deps): Handler<'updateChannel'> => async (req) => {
  const c = await d.channels.update(req.params.channelId, { name: req.body.name, key: req.body.key, settings: req.body.settings, version: req.body.version }, actorOf(req.ctx));
  return { status: 200, body: channelView(c, d.channels.settingsView(c)) };
};
