import type { Handler } from '../types.js';
import { testResultView } from '../channel-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'channels'>;

/** POST /channels/test: a test message with unsaved settings (email to the caller). */
export const testChannelSettings = (d: Deps): Handler<'testChannelSettings'> => async (req) => {
  const caller = { email: await d.channels.callerEmail(req.ctx.principal?.user.id) };
  const r = await d.channels.testSettings({ type: req.body.type, channelId: req.body.channel_id, settings: req.body.settings }, caller);
  return { status: 200, body: testResultView(r) };
};
