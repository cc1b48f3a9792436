import type { Registry } from 'prom-client';
import type { Handler } from '../types.js';
import { DomainError } from '../../core/errors.js';
import { sameToken } from '../../domain/identity/tokens.js';

function matches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m) return false;
  return sameToken(m[1]!, token);
}

export const getMetrics = (deps: { registry: Registry; metricsToken: string | undefined }): Handler<'getMetrics'> =>
  async (req) => {
    if (deps.metricsToken !== undefined && !matches(req.headers.authorization, deps.metricsToken)) {
      throw new DomainError('auth.unauthenticated', 'Send Authorization: Bearer <SVC_METRICS_TOKEN>');
    }
    return { status: 200, body: await deps.registry.metrics(), contentType: deps.registry.contentType };
  };
