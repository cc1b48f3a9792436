import { buildProblem } from '../../src/http/problem.js';
import { inUse, versionConflict } from '../../src/core/errors.js';
import { statusForCode } from '../../src/handlers/error-status.js';

describe('problem documents', () => {
  it('carries type, title, status, code, i18n_key and request_id', () => {
    const p = buildProblem('https://herald.example/docs/errors', 'req-1', 'conflict.version', versionConflict().message);
    expect(p).toEqual({
      type: 'https://herald.example/docs/errors/conflict.version',
      title: 'The resource changed since you read it',
      status: 409,
      code: 'conflict.version',
      i18n_key: 'errors.conflict.version',
      detail: versionConflict().message,
      request_id: 'req-1',
    });
  });

  it('answers 409 <resource>.in_use with the dependents', () => {
    const err = inUse('connection', [{ type: 'query', id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', name: 'Daily sales' }]);
    const p = buildProblem('b', 'r', err.code, err.message, err.extras);
    expect(p.status).toBe(409);
    expect(p.code).toBe('connection.in_use');
    expect(p.dependents).toEqual([{ type: 'query', id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', name: 'Daily sales' }]);
  });

  it('says nothing of a 500 beyond its request id', () => {
    const p = buildProblem('b', 'r', 'internal', 'connection to 10.0.0.5 refused: password authentication failed');
    expect(p.detail).toBeUndefined();
    expect(JSON.stringify(p)).not.toContain('10.0.0.5');
  });

  it('maps every problem code to its status', () => {
    const table: Record<string, number> = {
      'request.malformed': 400, 'auth.mixed_credentials': 400, 'auth.unauthenticated': 401, 'auth.invalid_credentials': 401,
      'auth.forbidden': 403, 'auth.csrf_failed': 403, 'auth.session_required': 403, not_found: 404, 'conflict.version': 409,
      'connection.in_use': 409, 'query.in_use': 409, 'channel.in_use': 409, 'gitops.managed': 409, 'setup.completed': 409,
      'idempotency.mismatch': 409, 'request.too_large': 413, 'request.unsupported_media_type': 415, 'validation.failed': 422,
      'connection.auth_failed': 422, 'connection.unreachable': 422, 'query.failed': 422, 'query.timeout': 422,
      'query.not_read_only': 422, rate_limited: 429, unavailable: 503,
    };
    for (const [code, status] of Object.entries(table)) expect([code, statusForCode(code)]).toEqual([code, status]);
  });
});
