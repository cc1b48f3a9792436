/**
 * The identity store: the repositories of users, sessions, API keys, reset links and security
 * events, bound to the database or to one transaction (the identity domain's IdentityStore).
 */
import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../client.js';
import { usersRepo } from './users-repo.js';
import { sessionsRepo } from './sessions-repo.js';
import { apiKeysRepo } from './api-keys-repo.js';
import { passwordResetsRepo } from './password-resets-repo.js';
import { securityEventsRepo } from './security-events-repo.js';
import { authFlowsRepo, identityLinksRepo, passkeysRepo, recoveryCodesRepo, settingsRepo } from './sign-in-repo.js';
import type { IdentityRepos, IdentityStore } from '../../../domain/identity/ports.js';

const SETUP_LOCK = 7_246_135_002;

function reposOf(tx: Tx): IdentityRepos {
  return {
    users: usersRepo(tx),
    sessions: sessionsRepo(tx),
    apiKeys: apiKeysRepo(tx),
    passwordResets: passwordResetsRepo(tx),
    events: securityEventsRepo(tx),
    recoveryCodes: recoveryCodesRepo(tx),
    passkeys: passkeysRepo(tx),
    flows: authFlowsRepo(tx),
    identityLinks: identityLinksRepo(tx),
    settings: settingsRepo(tx),
  };
}

export function createIdentityStore(db: Db): IdentityStore {
  return {
    ...reposOf(db),
    transaction(work) {
      return db.transaction((tx) => work({
        ...reposOf(tx),
        async lockSetup() { await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK})`); },
      }));
    },
  };
}
