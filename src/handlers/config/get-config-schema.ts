import type { Handler } from '../types.js';
import { CONFIG_SCHEMA } from '../../domain/config/model.js';

export const getConfigSchema = (): Handler<'getConfigSchema'> => async () =>
  ({ status: 200, body: CONFIG_SCHEMA as unknown as Record<string, unknown>, contentType: 'application/schema+json' });
