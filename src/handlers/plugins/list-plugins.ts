import type { Handler } from '../types.js';
import { pluginView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'plugins'>;

export const listPlugins = (d: Deps): Handler<'listPlugins'> => async () =>
  ({ status: 200, body: { items: d.plugins.list().map((m) => pluginView(m, d.plugins.channel(m.id)?.deliverySchema)) } });
