/** First-run setup: the first admin, created and signed in; exactly one of racing setups wins. */
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { PasswordHasher } from '../identity/passwords.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { issueSession, type SessionPolicy } from './sessions.js';
import { asUser, assertPassword, deviceFor, type RequestMeta, type SignedIn } from './auth-shared.js';
import type { IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

const setupCompleted = () => new DomainError('setup.completed', 'Setup is already done; sign in instead');

export function createSetupService(deps: {
  store: Pick<IdentityStore, 'users'>; uow: UnitOfWork; hasher: PasswordHasher; sessionPolicy: SessionPolicy; clock: Clock;
}) {
  const { store, clock } = deps;
  return {
    async needsSetup(): Promise<boolean> {
      return (await store.users.count()) === 0;
    },

    async setup(input: { name: string; email: string; password: string }, meta: RequestMeta): Promise<SignedIn> {
      // Answer a finished setup before any costly work: otherwise every anonymous POST /setup
      // would buy a bcrypt hash. The count is checked again under the lock.
      if ((await store.users.count()) > 0) throw setupCompleted();
      assertPassword(input.password, input.email, 'password');
      const passwordHash = await deps.hasher.hash(input.password);
      return deps.uow.run(async (tx) => {
        await tx.lockSetup();
        if ((await tx.users.count()) > 0) throw setupCompleted();
        const now = clock.now();
        const user = await tx.users.insert({
          id: newId(), name: input.name.trim(), email: input.email, role: 'admin', passwordHash, mustChangePassword: false,
          passwordChangedAt: now, lastSignInAt: now,
        });
        const session = await issueSession(tx.sessions, deps.sessionPolicy, { userId: user.id, method: 'setup', ...meta }, now);
        const actor = asUser(user.id, meta);
        await recordSecurityEvent(tx.securityEvents, { type: 'setup.completed', actor, userId: user.id, target: { type: 'user', id: user.id } }, clock);
        await recordSecurityEvent(tx.securityEvents, { type: 'user.created', actor, userId: user.id, target: { type: 'user', id: user.id }, details: { role: 'admin' } }, clock);
        return { user, session, device: deviceFor(deps.sessionPolicy.secretKey, user, now) };
      });
    },
  };
}

export type SetupService = ReturnType<typeof createSetupService>;
