import type { Handler } from '../types.js';
import { testResultView } from '../channel-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels'>;

/** POST /channels/{id}/test: a test message through a saved channel (email to the caller). */
export const testChannel = (d: Deps): Handler<'testChannel'> => async (req) => {
  const caller = { email: await d.channels.callerEmail(req.ctx.principal?.user.id) };
  return { status: 200, body: testResultView(await d.channels.test(req.params.channelId, caller)) };
};
