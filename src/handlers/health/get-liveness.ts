import type { Handler } from '../types.js';

export const getLiveness = (): Handler<'getLiveness'> => async () => ({ status: 200, body: { status: 'ok' } });
