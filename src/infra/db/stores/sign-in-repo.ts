/**
 * The records of the sign-in methods beyond the password (the identity domain's ports of the
 * same names): recovery codes, passkeys, single-use sign-in steps (auth flows), identity-provider
 * links, and the workspace settings objects.
 */
import { and, asc, count, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { authFlows, passkeys, recoveryCodes, userIdentities, workspaceSettings } from '../schema.js';
import { pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { DomainError, notFound, versionConflict } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type { AuthFlowsRepo, IdentityLinksRepo, PasskeysRepo, RecoveryCodesRepo, SettingsRepo } from '../../../domain/identity/ports.js';

export type PasskeyRow = typeof passkeys.$inferSelect;
export type AuthFlowRow = typeof authFlows.$inferSelect;
export type IdentityLinkRow = typeof userIdentities.$inferSelect;
export type SettingsRow = typeof workspaceSettings.$inferSelect;

export function recoveryCodesRepo(tx: Tx): RecoveryCodesRepo {
  return {
    /** Replaces every code of a user with these hashes. */
    async replace(userId: string, hashes: string[], now: Date): Promise<void> {
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
      if (hashes.length > 0) {
        await tx.insert(recoveryCodes).values(hashes.map((codeHash) => ({ id: newId(), userId, codeHash, createdAt: now })));
      }
    },
    /** Uses a code once: true when an unused code of that hash existed (and is now used). */
    async use(userId: string, codeHash: string, now: Date): Promise<boolean> {
      const rows = await tx.update(recoveryCodes).set({ usedAt: now })
        .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
        .returning({ id: recoveryCodes.id });
      return rows.length > 0;
    },
    async remaining(userId: string): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
      return row?.n ?? 0;
    },
    async removeAll(userId: string): Promise<void> {
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    },
  };
}

export function passkeysRepo(tx: Tx): PasskeysRepo {
  return {
    async insert(row: typeof passkeys.$inferInsert): Promise<PasskeyRow> {
      try {
        const [created] = await tx.insert(passkeys).values(row).returning();
        return created!;
      } catch (err) {
        if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'passkeys_credential_id_key') {
          throw new DomainError('passkey.already_registered', 'This authenticator is registered already');
        }
        throw err;
      }
    },
    /** Oldest first. */
    listOf(userId: string): Promise<PasskeyRow[]> {
      return tx.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));
    },
    async countOf(userId: string): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
      return row?.n ?? 0;
    },
    async findByCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
      const [row] = await tx.select().from(passkeys).where(eq(passkeys.credentialId, credentialId));
      return row;
    },
    async findOf(userId: string, id: string): Promise<PasskeyRow | undefined> {
      const [row] = await tx.select().from(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)));
      return row;
    },
    async rename(userId: string, id: string, name: string, now: Date): Promise<PasskeyRow> {
      const [row] = await tx.update(passkeys).set({ name, updatedAt: now })
        .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId))).returning();
      if (!row) throw notFound('passkey');
      return row;
    },
    /**
     * Records a verified use: the new counter only when it moved forward from the one the
     * verification saw (a concurrent use with the same counter loses), false otherwise.
     */
    async recordUse(id: string, seenCounter: number, newCounter: number, now: Date): Promise<boolean> {
      const rows = await tx.update(passkeys).set({ counter: newCounter, lastUsedAt: now })
        .where(and(eq(passkeys.id, id), eq(passkeys.counter, seenCounter))).returning({ id: passkeys.id });
      return rows.length > 0;
    },
    async remove(userId: string, id: string): Promise<PasskeyRow | undefined> {
      const [row] = await tx.delete(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.userId, userId))).returning();
      return row;
    },
    async removeAllOf(userId: string): Promise<number> {
      const rows = await tx.delete(passkeys).where(eq(passkeys.userId, userId)).returning({ id: passkeys.id });
      return rows.length;
    },
  };
}

export function authFlowsRepo(tx: Tx): AuthFlowsRepo {
  return {
    async insert(row: Omit<typeof authFlows.$inferInsert, 'failures' | 'usedAt'>): Promise<void> {
      await tx.insert(authFlows).values(row);
    },
    /** The unused, unexpired flow of a kind and token hash, without using it. */
    async findUsable(kind: string, tokenHash: string, now: Date): Promise<AuthFlowRow | undefined> {
      const [row] = await tx.select().from(authFlows).where(and(
        eq(authFlows.kind, kind), eq(authFlows.tokenHash, tokenHash), isNull(authFlows.usedAt), gt(authFlows.expiresAt, now),
      ));
      return row;
    },
    /** Uses a flow once: the row when it was unused and unexpired (and is now used). */
    async consume(kind: string, tokenHash: string, now: Date): Promise<AuthFlowRow | undefined> {
      const [row] = await tx.update(authFlows).set({ usedAt: now }).where(and(
        eq(authFlows.kind, kind), eq(authFlows.tokenHash, tokenHash), isNull(authFlows.usedAt), gt(authFlows.expiresAt, now),
      )).returning();
      return row;
    },
    /** Marks a flow used by id; false when it was used already. */
    async claim(id: string, now: Date): Promise<boolean> {
      const rows = await tx.update(authFlows).set({ usedAt: now })
        .where(and(eq(authFlows.id, id), isNull(authFlows.usedAt))).returning({ id: authFlows.id });
      return rows.length > 0;
    },
    /** Counts a wrong answer; the flow ends (used) once `max` is reached. Returns the failures so far. */
    async fail(id: string, max: number, now: Date): Promise<number> {
      const [row] = await tx.update(authFlows).set({
        failures: sql`${authFlows.failures} + 1`,
        usedAt: sql`case when ${authFlows.failures} + 1 >= ${max} then ${now.toISOString()}::timestamptz else ${authFlows.usedAt} end`,
      }).where(eq(authFlows.id, id)).returning({ failures: authFlows.failures });
      return row?.failures ?? max;
    },
    /** Every unused flow of a user and kinds ends (a password change, a disabled second factor). */
    async endAllOf(userId: string, kinds: string[], now: Date): Promise<void> {
      await tx.update(authFlows).set({ usedAt: now })
        .where(and(eq(authFlows.userId, userId), inArray(authFlows.kind, kinds), isNull(authFlows.usedAt)));
    },
    /** Deletes up to `batch` flows expired or used before `before`. */
    async deleteDead(before: Date, batch: number): Promise<number> {
      const dead = tx.select({ id: authFlows.id }).from(authFlows)
        .where(or(lt(authFlows.expiresAt, before), lt(authFlows.usedAt, before))).limit(batch);
      const rows = await tx.delete(authFlows).where(inArray(authFlows.id, dead)).returning({ id: authFlows.id });
      return rows.length;
    },
  };
}

export function identityLinksRepo(tx: Tx): IdentityLinksRepo {
  return {
    async find(issuer: string, subject: string): Promise<IdentityLinkRow | undefined> {
      const [row] = await tx.select().from(userIdentities).where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
      return row;
    },
    async insert(row: typeof userIdentities.$inferInsert): Promise<IdentityLinkRow> {
      const [created] = await tx.insert(userIdentities).values(row).onConflictDoNothing().returning();
      if (created) return created;
      const existing = await this.find(row.issuer, row.subject);
      if (!existing) throw new Error('identity link vanished');
      return existing;
    },
    /** Issuers linked to this user (any link to the current issuer counts as one account there). */
    async linkedTo(userId: string, issuer: string): Promise<IdentityLinkRow | undefined> {
      const [row] = await tx.select().from(userIdentities).where(and(eq(userIdentities.userId, userId), eq(userIdentities.issuer, issuer)));
      return row;
    },
    async touch(id: string, email: string | null, now: Date): Promise<void> {
      await tx.update(userIdentities).set({ lastSignInAt: now, email }).where(eq(userIdentities.id, id));
    },
  };
}

export function settingsRepo(tx: Tx): SettingsRepo {
  return {
    async get(key: string): Promise<SettingsRow | undefined> {
      const [row] = await tx.select().from(workspaceSettings).where(eq(workspaceSettings.key, key));
      return row;
    },
    /**
     * Writes a settings object when `version` is its current version (1 for one never written:
     * the defaults read as version 1). 409 conflict.version otherwise.
     */
    async put(key: string, version: number, value: Record<string, unknown>, secretsSealed: string | null, now: Date): Promise<SettingsRow> {
      if (version === 1) {
        const [created] = await tx.insert(workspaceSettings)
          .values({ key, value, secretsSealed, version: 2, createdAt: now, updatedAt: now })
          .onConflictDoNothing().returning();
        if (created) return created;
      }
      const [row] = await tx.update(workspaceSettings).set({ value, secretsSealed, version: sql`${workspaceSettings.version} + 1`, updatedAt: now })
        .where(and(eq(workspaceSettings.key, key), eq(workspaceSettings.version, version))).returning();
      if (!row) throw versionConflict();
      return row;
    },
  };
}
