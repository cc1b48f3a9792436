import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels'>;

export const deleteChannel = (d: Deps): Handler<'deleteChannel'> => async (req) => {
  await d.channels.delete(req.params.channelId, actorOf(req.ctx));
  return { status: 204, body: undefined };
};
