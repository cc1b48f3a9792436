/**
 * What the identity domain knows of its records. The store (src/infra/db/stores) keeps them;
 * the domain only sees these shapes, through the ports of ./ports.ts.
 */
import type { Role, Scope } from './principal.js';

export interface User {
  id: string;
  name: string;
  email: string;
  role: Role;
  enabled: boolean;
  passwordHash: string | null;
  mustChangePassword: boolean;
  preferences: Record<string, string>;
  totpEnabled: boolean;
  /** The authenticator-app secret, sealed (users.totp_secret:<id>). */
  totpSecret: string | null;
  /** The secret being enrolled, sealed (users.totp_pending_secret:<id>). */
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  totpEnabledAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  passwordChangedAt: Date | null;
  lastSignInAt: Date | null;
}

export interface NewUser {
  id: string;
  name: string;
  email: string;
  role: Role;
  passwordHash: string | null;
  mustChangePassword: boolean;
  passwordChangedAt: Date | null;
  /** Set when creating the user also signs it in (first-run setup). */
  lastSignInAt?: Date;
}

export type UserChanges = Partial<Pick<User,
  'name' | 'role' | 'enabled' | 'passwordHash' | 'mustChangePassword' | 'preferences' | 'passwordChangedAt' | 'lastSignInAt'
  | 'totpEnabled' | 'totpSecret' | 'totpPendingSecret' | 'totpLastStep' | 'totpEnabledAt'>>;

export type SessionMethod = 'password' | 'setup' | 'passkey' | 'oidc';
/** The second step of a password sign-in. */
export type SecondFactor = 'totp' | 'recovery_code' | 'passkey';

export interface SessionRecord {
  id: string;
  userId: string;
  tokenHash: string;
  method: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  revokedAt: Date | null;
  secondFactor: string | null;
  /** Waiting for the user to enrol a second factor (workspace policy): little else is allowed. */
  mustEnrol: boolean;
}

/** A live session with what the request needs of its user. */
export interface LiveSession {
  id: string;
  lastSeenAt: Date;
  userId: string;
  name: string;
  role: Role;
  mustChangePassword: boolean;
  mustEnrol: boolean;
  /** The absolute expiry (idle expiry is further off for a session in use). */
  expiresAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  createdBy: string | null;
  name: string;
  prefix: string;
  tokenHash: string;
  scope: Scope;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export type NewApiKey = Pick<ApiKeyRecord, 'id' | 'userId' | 'createdBy' | 'name' | 'prefix' | 'tokenHash' | 'scope' | 'expiresAt' | 'createdAt'>;

/** A key with what the request needs of its owner. */
export interface KeyWithOwner {
  id: string;
  scope: Scope;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  userId: string;
  name: string;
  role: Role;
  enabled: boolean;
}

export interface PasswordResetRecord {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export type SecurityEventType =
  | 'setup.completed'
  | 'auth.sign_in' | 'auth.sign_out'
  | 'auth.password_changed' | 'auth.password_reset_requested' | 'auth.password_reset_completed'
  | 'session.revoked' | 'session.revoked_all'
  | 'api_key.created' | 'api_key.revoked' | 'api_key.rejected'
  | 'user.created' | 'user.role_changed' | 'user.enabled_changed' | 'user.password_reset_by_admin'
  | 'connection.created' | 'connection.updated' | 'connection.deleted'
  | 'channel.created' | 'channel.updated' | 'channel.deleted'
  | 'delivery.created' | 'delivery.updated' | 'delivery.deleted'
  | 'config.applied' | 'gitops.detached' | 'gitops.attached'
  | 'link.created' | 'link.revoked'
  | 'two_factor.setup_started' | 'two_factor.enabled' | 'two_factor.disabled' | 'two_factor.recovery_codes_replaced'
  | 'auth.second_factor' | 'auth.recovery_code_used'
  | 'passkey.added' | 'passkey.renamed' | 'passkey.removed' | 'passkey.clone_refused'
  | 'auth.oidc' | 'oidc.linked' | 'settings.updated' | 'settings.oidc_updated' | 'settings.alerts_updated' | 'settings.alerts_tested' | 'settings.ai_updated';

/** `system`: a command run on the server (herald admin reset-password). */
export type ActorType = 'user' | 'api_key' | 'anonymous' | 'system';

export interface SecurityEventRecord {
  id: string;
  occurredAt: Date;
  type: string;
  outcome: 'success' | 'failure';
  reason: string | null;
  actorType: ActorType;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  targetType: string | null;
  targetId: string | null;
  subjectUserId: string | null;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
}

export interface PasskeyRecord {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  aaguid: string | null;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
}

/** A single-use step of a sign-in (ticket, WebAuthn challenge, OIDC flow). */
export interface AuthFlowRecord {
  id: string;
  kind: string;
  tokenHash: string;
  userId: string | null;
  data: Record<string, unknown>;
  failures: number;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface IdentityLinkRecord {
  id: string;
  userId: string;
  issuer: string;
  subject: string;
  email: string | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

export interface SettingsRecord {
  key: string;
  value: Record<string, unknown>;
  secretsSealed: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}
