/**
 * The pure helpers of the web UI's admin pages: the scopes a key for an owner of each role is
 * worth (checked against the contract's x-min-role / x-min-scope table), expiry presets, a key's
 * state, and the audit trail's filters in the address.
 */
import { operationMeta, type Access, type Role } from '../../src/generated/operations.js';
import {
  HIGHEST_SCOPE, SCOPES, capScope, expiresAt, keyState, scopesFor,
} from '../../web/src/features/api-keys/utils/keys.js';
import { EVENT_TYPES, eventsQuery, parseFilters, withFilter } from '../../web/src/features/audit/utils/filters.js';

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

describe('scopes a key may usefully have', () => {
  it('match, for each role, the highest scope an operation open to that role asks of a key', () => {
    for (const role of ['viewer', 'editor', 'admin'] as Role[]) {
      const needed = Object.values(operationMeta).map((op): Access => op.access)
        .flatMap((a) => (a.public || a.sessionOnly || RANK[a.minRole] > RANK[role] ? [] : [SCOPES.indexOf(a.minScope)]));
      expect([role, SCOPES[Math.max(...needed)]]).toEqual([role, HIGHEST_SCOPE[role]]);
    }
  });

  it('are offered lowest first, up to the role\'s highest', () => {
    expect(scopesFor('viewer')).toEqual(['read']);
    expect(scopesFor('editor')).toEqual(['read', 'run', 'write']);
    expect(scopesFor('admin')).toEqual(['read', 'run', 'write', 'admin']);
  });

  it('cap a chosen scope at what the owner can use', () => {
    expect(capScope('admin', 'editor')).toBe('write');
    expect(capScope('run', 'viewer')).toBe('read');
    expect(capScope('run', 'editor')).toBe('run');
    expect(capScope('admin', 'admin')).toBe('admin');
  });
});

describe('key expiry and state', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');

  it('turns a preset into a moment, or none', () => {
    expect(expiresAt('never', now)).toBeUndefined();
    expect(expiresAt('30', now)).toBe('2026-03-31T12:00:00.000Z');
    expect(expiresAt('365', now)).toBe('2027-03-01T12:00:00.000Z');
  });

  it('reads revoked before expired before active', () => {
    expect(keyState({ revoked_at: '2026-02-01T00:00:00Z', expires_at: '2026-01-01T00:00:00Z' }, now)).toBe('revoked');
    expect(keyState({ revoked_at: null, expires_at: '2026-03-01T12:00:00.000Z' }, now)).toBe('expired');
    expect(keyState({ revoked_at: null, expires_at: '2026-03-01T12:00:01.000Z' }, now)).toBe('active');
    expect(keyState({ revoked_at: null, expires_at: null }, now)).toBe('active');
  });
});

describe('audit trail filters in the address', () => {
  const user = '01a215c7-a8f8-7274-972b-707e3e7250e8';

  it('keeps what the contract accepts and drops the rest', () => {
    expect(parseFilters(new URLSearchParams(`type=user.role_changed&user=${user}`))).toEqual({ type: 'user.role_changed', user });
    expect(parseFilters(new URLSearchParams('type=Robert%27);DROP&user=42'))).toEqual({});
    expect(parseFilters(new URLSearchParams(`type=${'a'.repeat(40)}.${'b'.repeat(30)}`))).toEqual({});
    expect(parseFilters(new URLSearchParams(''))).toEqual({});
  });

  it('sets and clears one filter, keeping the others', () => {
    const params = new URLSearchParams(`type=auth.sign_in&user=${user}`);
    expect(withFilter(params, { type: 'user.created' }).toString()).toBe(`type=user.created&user=${user}`);
    expect(withFilter(params, { user: null }).toString()).toBe('type=auth.sign_in');
    expect(withFilter(params, { type: '', user: null }).toString()).toBe('');
    expect(params.toString()).toBe(`type=auth.sign_in&user=${user}`);
  });

  it('becomes listSecurityEvents\' query', () => {
    expect(eventsQuery({ type: 'auth.sign_in', user })).toEqual({ type: 'auth.sign_in', user_id: user });
    expect(eventsQuery({})).toEqual({});
  });

  it('offers each known type once, in the shape the contract asks', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });
});
