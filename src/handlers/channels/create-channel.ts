import type { Handler } from '../types.js';
import { channelView } from '../channel-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels'>;

export const createChannel = (d: Deps): Handler<'createChannel'> => async (req) => {
  const c = await d.channels.create({ name: req.body.name, key: req.body.key, type: req.body.type, settings: req.body.settings }, actorOf(req.ctx));
  return { status: 201, body: channelView(c, d.channels.settingsView(c)) };
};
