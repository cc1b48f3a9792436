/**
 * The identity store: the repositories of users, sessions, API keys, reset links and security
 * events, bound to the database (the identity domain's IdentityStore: reads and single
 * statements), and the same bound to a unit of work's transaction (identityRepos, with the setup
 * lock only a transaction can hold). No transaction is opened here: the unit of work does.
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
import type { TxRepos } from '../../../domain/unit-of-work/ports.js';

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

/** The identity repositories of a unit of work, bound to its transaction (part of its TxRepos). */
export function identityRepos(tx: Tx): Pick<TxRepos, 'users' | 'sessions' | 'apiKeys' | 'passwordResets' | 'recoveryCodes' | 'passkeys' | 'authFlows' | 'identityLinks' | 'workspaceSettings' | 'lockSetup'> {
  return {
    users: usersRepo(tx),
    sessions: sessionsRepo(tx),
    apiKeys: apiKeysRepo(tx),
    passwordResets: passwordResetsRepo(tx),
    recoveryCodes: recoveryCodesRepo(tx),
    passkeys: passkeysRepo(tx),
    authFlows: authFlowsRepo(tx),
    identityLinks: identityLinksRepo(tx),
    workspaceSettings: settingsRepo(tx),
    async lockSetup() { await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK})`); },
  };
}

export function createIdentityStore(db: Db): IdentityStore {
  return reposOf(db);
}
