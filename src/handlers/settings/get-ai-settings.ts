import type { Handler } from '../types.js';
import { aiSettingsView } from '../ai-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'aiSettings'>;

export const getAiSettings = (d: Deps): Handler<'getAiSettings'> => async () => ({ status: 200, body: aiSettingsView(await d.aiSettings.get()) });
