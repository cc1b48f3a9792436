import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'assistant'>;

export const getAiStatus = (d: Deps): Handler<'getAiStatus'> => async () => ({ status: 200, body: await d.assistant.status() });
