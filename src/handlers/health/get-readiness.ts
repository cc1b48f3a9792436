import type { Handler } from '../types.js';
import type { Readiness } from '../../domain/health/readiness.js';

export const getReadiness = (deps: { readiness: () => Promise<Readiness> }): Handler<'getReadiness'> => async () => {
  const body = await deps.readiness();
  return body.status !== 'unhealthy' ? { status: 200, body } : { status: 503, body };
};
