/**
 * Single sign-on through an OpenID provider (openid-client): the settings (client secret sealed),
 * a discovery check, and the authorization code flow with PKCE (S256), state and nonce. The flow
 * is kept server side (a hash of the svc_oidc cookie names it), lasts ten minutes and works once.
 * The callback signs in the user linked to the provider's issuer and subject; it links an
 * existing account only by a verified email, creates one when the settings allow, maps a roles
 * claim to Herald roles, and refuses disabled users and emails outside the allowed domains.
 * Every request to the provider goes through the outbound guard (SVC_OUTBOUND_ALLOW); a plain
 * http issuer is accepted only when SVC_OUTBOUND_ALLOW names its host.
 */
import type * as Oidc from 'openid-client';
import type { Clock } from '../../core/clock.js';
import { DomainError, validationFailed, type FieldProblem } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Secrets } from '../../core/secrets.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import { anonymous, asUser, type RequestMeta, type SignedIn } from './auth-shared.js';
import { completeSignIn, type BrowserProof } from './sign-in-service.js';
import type { SessionPolicy } from './sessions.js';
import { normalizeEmail, randomToken, sameToken, tokenHash } from '../identity/tokens.js';
import { DEFAULT_SSO_BUTTON_LABEL, OIDC_KEY } from '../workspace/workspace-settings.js';
import { ROLE_RANK, type Role } from '../identity/principal.js';
import type { IdentityStore, SettingsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { User } from '../identity/model.js';

/** The fetch the provider is reached with (the outbound guard), and whether plain http may be used for a URL. */
export interface OidcTransport {
  fetch(url: string, init: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal }): Promise<Response>;
  allowsHttp(url: string): boolean;
}

export interface OidcSettings {
  enabled: boolean;
  issuerUrl: string | null;
  clientId: string | null;
  hasClientSecret: boolean;
  scopes: string[];
  roleClaim: string | null;
  roleMapping: Record<string, Role>;
  allowedDomains: string[];
  createUsers: boolean;
  defaultRole: Role;
  buttonLabel: string;
  version: number;
  /** Null until the settings are first saved. */
  updatedAt: Date | null;
}

export interface OidcSettingsInput {
  version: number;
  enabled: boolean;
  issuerUrl?: string | null | undefined;
  clientId?: string | null | undefined;
  /** A string replaces, null removes, undefined keeps. */
  clientSecret?: string | null | undefined;
  scopes?: string[] | undefined;
  roleClaim?: string | null | undefined;
  roleMapping?: Record<string, Role> | undefined;
  allowedDomains?: string[] | undefined;
  createUsers?: boolean | undefined;
  defaultRole?: Role | undefined;
  buttonLabel?: string | undefined;
}

export interface DiscoveryResult {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint: string | null;
  scopesSupported: string[];
  elapsedMs: number;
}

/** Where a failed callback sends the browser: {public}/sign-in?error=<code>. */
export type OidcFailure =
  | 'oidc.flow_invalid' | 'oidc.provider_error' | 'oidc.exchange_failed' | 'oidc.email_unverified' | 'oidc.domain_not_allowed'
  | 'oidc.no_account' | 'oidc.already_linked' | 'auth.user_disabled' | 'oidc.disabled';

export class OidcSignInError extends Error {
  constructor(readonly code: OidcFailure, message: string) {
    super(message);
  }
}

const FLOW = 'oidc';
/** openid-client, loaded the first time single sign-on is used (most installations never do). */
const openidClient = () => import('openid-client');
const FLOW_TTL_MS = 10 * 60_000;
const CONFIG_TTL_MS = 5 * 60_000;
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
const secretsContext = `workspace_settings.secrets:${OIDC_KEY}`;

export function readOidcSettings(row: Awaited<ReturnType<SettingsRepo['get']>>): OidcSettings {
  const v = row?.value ?? {};
  const str = (x: unknown) => (typeof x === 'string' && x ? x : null);
  const role = (x: unknown): Role => (x === 'admin' || x === 'editor' ? x : 'viewer');
  return {
    enabled: v.enabled === true,
    issuerUrl: str(v.issuer_url),
    clientId: str(v.client_id),
    hasClientSecret: !!row?.secretsSealed,
    scopes: Array.isArray(v.scopes) ? (v.scopes as string[]) : DEFAULT_SCOPES,
    roleClaim: str(v.role_claim),
    roleMapping: (v.role_mapping && typeof v.role_mapping === 'object' ? v.role_mapping : {}) as Record<string, Role>,
    allowedDomains: Array.isArray(v.allowed_domains) ? (v.allowed_domains as string[]) : [],
    createUsers: v.create_users === true,
    defaultRole: role(v.default_role),
    buttonLabel: str(v.button_label) ?? DEFAULT_SSO_BUTTON_LABEL,
    version: row?.version ?? 1,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** The highest role the claim's values map to. */
export function mappedRole(claim: unknown, mapping: Record<string, Role>): Role | undefined {
  const values = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/[\s,]+/) : [];
  let best: Role | undefined;
  for (const value of values) {
    const role = typeof value === 'string' ? mapping[value] : undefined;
    if (role && (!best || ROLE_RANK[role] > ROLE_RANK[best])) best = role;
  }
  return best;
}

export function createOidcService(deps: {
  store: Pick<IdentityStore, 'settings' | 'users' | 'identityLinks' | 'flows' | 'events' | 'sessions'>; uow: UnitOfWork;
  secrets: Secrets;
  transport: OidcTransport;
  sessionPolicy: SessionPolicy;
  publicUrl: string;
  clock: Clock;
}) {
  const { store, secrets, clock } = deps;
  const redirectUri = `${deps.publicUrl.replace(/\/+$/, '')}/api/v1/auth/oidc/callback`;
  const failureUrl = (code: OidcFailure) => `${deps.publicUrl.replace(/\/+$/, '')}/sign-in?error=${encodeURIComponent(code)}`;
  let cached: { key: string; at: number; config: Oidc.Configuration } | undefined;

  const fetchVia: Oidc.CustomFetch = async (url, options) => {
    const body = options.body;
    return deps.transport.fetch(url, {
      method: options.method, headers: options.headers,
      body: body === undefined || body === null ? undefined : body instanceof URLSearchParams ? body.toString() : body,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  };

  /**
   * Why a discovery failed, in words an admin can act on: the library's message and its causes
   * (openid-client wraps a failed fetch as "something went wrong"; the cause says ECONNREFUSED,
   * ENOTFOUND, a timeout or the outbound guard's refusal).
   */
  function reasonOf(err: unknown): string {
    const parts: string[] = [];
    for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
      const code = (e as { code?: unknown }).code;
      const text = typeof code === 'string' && code !== '' && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
      if (text && !parts.includes(text) && !/^something went wrong$/i.test(text)) parts.push(text);
    }
    return parts.length > 0 ? parts.join(': ') : 'no answer';
  }

  async function discover(issuerUrl: string, clientId: string, clientSecret: string | undefined): Promise<Oidc.Configuration> {
    const client = await openidClient();
    let issuer: URL;
    try {
      issuer = new URL(issuerUrl);
    } catch {
      throw new DomainError('oidc.discovery_failed', 'The issuer URL is not a URL');
    }
    if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && deps.transport.allowsHttp(issuer.href))) {
      throw new DomainError('oidc.discovery_failed', 'The issuer must use https (plain http only for a host SVC_OUTBOUND_ALLOW names)');
    }
    try {
      const config = await client.discovery(issuer, clientId, undefined, clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(), {
        [client.customFetch]: fetchVia,
        ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
      });
      config[client.customFetch] = fetchVia;
      const meta = config.serverMetadata();
      if (!meta.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri) {
        throw new DomainError('oidc.discovery_failed', 'The discovery document lacks an authorization, token or JWKS endpoint');
      }
      if (meta.code_challenge_methods_supported && !meta.code_challenge_methods_supported.includes('S256')) {
        throw new DomainError('oidc.discovery_failed', 'The provider does not announce PKCE with S256');
      }
      if (meta.response_types_supported && !meta.response_types_supported.includes('code')) {
        throw new DomainError('oidc.discovery_failed', 'The provider does not announce the authorization code flow');
      }
      return config;
    } catch (err) {
      if (err instanceof DomainError) throw err;
      const reason = reasonOf(err).replace(/https?:\/\/\S+/g, (u) => { try { const url = new URL(u); return `${url.origin}${url.pathname}`; } catch { return '(url)'; } });
      throw new DomainError('oidc.discovery_failed', `The discovery document of ${issuer.origin}${issuer.pathname.replace(/\/$/, '')} could not be read: ${reason.slice(0, 300)}`);
    }
  }

  async function configFor(s: OidcSettings, clientSecret: string | undefined): Promise<Oidc.Configuration> {
    const key = `${s.issuerUrl}\n${s.clientId}\n${s.version}`;
    if (cached && cached.key === key && clock.now().getTime() - cached.at < CONFIG_TTL_MS) return cached.config;
    const config = await discover(s.issuerUrl!, s.clientId!, clientSecret);
    cached = { key, at: clock.now().getTime(), config };
    return config;
  }

  const secretOf = (sealed: string | null | undefined): string | undefined => {
    if (!sealed) return undefined;
    const parsed = JSON.parse(secrets.open(sealed, secretsContext)) as { client_secret?: string };
    return parsed.client_secret;
  };

  async function current() {
    const row = await store.settings.get(OIDC_KEY);
    return { settings: readOidcSettings(row), clientSecret: secretOf(row?.secretsSealed) };
  }

  function describe(config: Oidc.Configuration, startedAt: number): DiscoveryResult {
    const m = config.serverMetadata();
    return {
      issuer: m.issuer, authorizationEndpoint: m.authorization_endpoint!, tokenEndpoint: m.token_endpoint!, jwksUri: m.jwks_uri!,
      userinfoEndpoint: m.userinfo_endpoint ?? null, scopesSupported: m.scopes_supported ?? [], elapsedMs: Math.round(performance.now() - startedAt),
    };
  }

  /** Finds or makes the user of a verified identity, or throws the reason it may not sign in. */
  async function userFor(s: OidcSettings, issuer: string, claims: Record<string, unknown>, meta: RequestMeta): Promise<User> {
    const sub = String(claims.sub);
    const email = typeof claims.email === 'string' ? normalizeEmail(claims.email) : null;
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    const domain = email?.split('@')[1] ?? '';
    if (s.allowedDomains.length > 0 && !(email && s.allowedDomains.some((d) => d.toLowerCase() === domain))) {
      throw new OidcSignInError('oidc.domain_not_allowed', `Only these email domains may sign in: ${s.allowedDomains.join(', ')}`);
    }
    const role = s.roleClaim ? mappedRole(claims[s.roleClaim], s.roleMapping) : undefined;
    return deps.uow.run(async (tx) => {
      const now = clock.now();
      const link = await tx.identityLinks.find(issuer, sub);
      let user = link ? await tx.users.find(link.userId) : undefined;
      if (link && user) {
        await tx.identityLinks.touch(link.id, email, now);
      } else {
        if (!email || !verified) throw new OidcSignInError('oidc.email_unverified', 'The provider did not vouch for the email address (email_verified)');
        user = await tx.users.findByEmail(email);
        if (user) {
          if (await tx.identityLinks.linkedTo(user.id, issuer)) {
            throw new OidcSignInError('oidc.already_linked', 'This account is linked to another identity of the provider');
          }
        } else {
          if (!s.createUsers) throw new OidcSignInError('oidc.no_account', 'There is no account for this email and creating accounts is off');
          const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0]!;
          user = await tx.users.insert({
            id: newId(), name, email, role: role ?? s.defaultRole, passwordHash: null, mustChangePassword: false, passwordChangedAt: null,
          });
          await recordSecurityEvent(tx.securityEvents, {
            type: 'user.created', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id },
            details: { source: 'oidc', role: user.role },
          }, clock);
        }
        const created = await tx.identityLinks.insert({ id: newId(), userId: user.id, issuer, subject: sub, email, createdAt: now });
        await tx.identityLinks.touch(created.id, email, now);
        await recordSecurityEvent(tx.securityEvents, {
          type: 'oidc.linked', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id }, details: { issuer },
        }, clock);
      }
      if (!user.enabled) throw new OidcSignInError('auth.user_disabled', 'This account is disabled');
      if (role && role !== user.role) {
        // The provider's roles claim decides, but never takes away the last enabled admin.
        const admins = await tx.users.lockEnabledAdmins();
        if (!(user.role === 'admin' && admins.length <= 1 && admins.includes(user.id))) {
          const before = user.role;
          user = await tx.users.update(user.id, undefined, { role }, now);
          await recordSecurityEvent(tx.securityEvents, {
            type: 'user.role_changed', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id },
            details: { source: 'oidc', from: before, to: role },
          }, clock);
        }
      }
      return user;
    });
  }

  return {
    redirectUri,

    async get(): Promise<OidcSettings> {
      return (await current()).settings;
    },

    async replace(input: OidcSettingsInput, actor: Actor): Promise<OidcSettings> {
      const row = await store.settings.get(OIDC_KEY);
      const stored = secretOf(row?.secretsSealed);
      const clientSecret = input.clientSecret === undefined ? stored : input.clientSecret ?? undefined;
      const value = {
        enabled: input.enabled,
        issuer_url: input.issuerUrl?.replace(/\/+$/, '') ?? null,
        client_id: input.clientId ?? null,
        scopes: [...new Set(['openid', ...(input.scopes ?? DEFAULT_SCOPES)])],
        role_claim: input.roleClaim ?? null,
        role_mapping: input.roleMapping ?? {},
        allowed_domains: (input.allowedDomains ?? []).map((d) => d.toLowerCase()),
        create_users: input.createUsers ?? false,
        default_role: input.defaultRole ?? 'viewer',
        button_label: input.buttonLabel ?? DEFAULT_SSO_BUTTON_LABEL,
      };
      if (value.enabled) {
        const missing: FieldProblem[] = [];
        if (!value.issuer_url) missing.push({ field: 'issuer_url', code: 'validation.required', message: 'is needed to turn single sign-on on' });
        if (!value.client_id) missing.push({ field: 'client_id', code: 'validation.required', message: 'is needed to turn single sign-on on' });
        if (missing.length > 0) throw validationFailed(missing);
        // Turning it on needs a provider that answers: nobody is sent to a dead end.
        await discover(value.issuer_url!, value.client_id!, clientSecret);
      }
      const saved = await deps.uow.run(async (tx) => {
        const sealed = clientSecret ? secrets.seal(JSON.stringify({ client_secret: clientSecret }), secretsContext) : null;
        const next = await tx.workspaceSettings.put(OIDC_KEY, input.version, value, sealed, clock.now());
        await recordSecurityEvent(tx.securityEvents, {
          type: 'settings.oidc_updated', actor,
          details: {
            enabled: value.enabled, issuer: value.issuer_url ? new URL(value.issuer_url).origin : null,
            client_secret_changed: input.clientSecret !== undefined, create_users: value.create_users,
          },
        }, clock);
        return next;
      });
      cached = undefined;
      return readOidcSettings(saved);
    },

    async test(issuerUrl: string | undefined): Promise<DiscoveryResult> {
      const { settings, clientSecret } = await current();
      const issuer = issuerUrl ?? settings.issuerUrl;
      if (!issuer) throw validationFailed([{ field: 'issuer_url', code: 'validation.required', message: 'no issuer is saved; send one' }]);
      const startedAt = performance.now();
      return describe(await discover(issuer, settings.clientId ?? 'herald', clientSecret), startedAt);
    },

    /** The provider's authorization URL, and the token of the svc_oidc cookie that binds the flow to this browser. */
    async startLogin(returnTo: string | undefined): Promise<{ location: string; flowToken: string; maxAgeSeconds: number }> {
      const { settings, clientSecret } = await current();
      if (!settings.enabled || !settings.issuerUrl || !settings.clientId) throw new DomainError('oidc.disabled', 'Single sign-on is off');
      const config = await configFor(settings, clientSecret);
      const client = await openidClient();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const verifier = client.randomPKCECodeVerifier();
      const target = returnTo && /^\/(?![/\\])/.test(returnTo) ? returnTo : '/';
      const flowToken = randomToken();
      const now = clock.now();
      await store.flows.insert({
        id: newId(), kind: FLOW, tokenHash: tokenHash(flowToken), userId: null,
        data: { state, nonce, verifier, return_to: target, issuer: settings.issuerUrl, version: settings.version },
        createdAt: now, expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri, scope: settings.scopes.join(' '), response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce,
      });
      return { location: url.href, flowToken, maxAgeSeconds: FLOW_TTL_MS / 1000 };
    },

    /**
     * The provider's answer: signs in, or says why not. Either way the browser is sent on
     * (`location`); every outcome is audited (auth.sign_in for success, auth.oidc for refusals).
     */
    async finishLogin(
      query: Record<string, string | undefined>, flowToken: string | undefined, meta: RequestMeta, browser: BrowserProof,
    ): Promise<{ location: string; signedIn?: SignedIn }> {
      let userId: string | null = null;
      try {
        const flow = flowToken ? await store.flows.consume(FLOW, tokenHash(flowToken), clock.now()) : undefined;
        const data = flow?.data as { state: string; nonce: string; verifier: string; return_to: string; issuer: string } | undefined;
        if (!data) throw new OidcSignInError('oidc.flow_invalid', 'No sign-in was started in this browser, or it expired');
        if (!query.state || !sameToken(query.state, data.state)) throw new OidcSignInError('oidc.flow_invalid', 'The state does not match the sign-in this browser started');
        if (query.error) throw new OidcSignInError('oidc.provider_error', `The provider answered ${query.error.slice(0, 100)}`);
        const { settings, clientSecret } = await current();
        if (!settings.enabled || settings.issuerUrl !== data.issuer) throw new OidcSignInError('oidc.disabled', 'Single sign-on is off or changed');
        const config = await configFor(settings, clientSecret);
        const client = await openidClient();
        const callback = new URL(redirectUri);
        for (const [k, v] of Object.entries(query)) if (v !== undefined) callback.searchParams.set(k, v);
        let claims: Record<string, unknown>;
        try {
          const tokens = await client.authorizationCodeGrant(config, callback, {
            pkceCodeVerifier: data.verifier, expectedState: data.state, expectedNonce: data.nonce, idTokenExpected: true,
          });
          claims = { ...(tokens.claims() ?? {}) };
          const needsMore = (!claims.email || (settings.roleClaim && claims[settings.roleClaim] === undefined)) && config.serverMetadata().userinfo_endpoint;
          if (needsMore) {
            const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub));
            claims = { ...info, ...claims, ...(settings.roleClaim && info[settings.roleClaim] !== undefined ? { [settings.roleClaim]: info[settings.roleClaim] } : {}) };
            if (!claims.email && info.email) claims.email = info.email;
          }
        } catch (err) {
          const why = err instanceof Error ? (err as { error?: string }).error ?? err.message : 'unknown';
          throw new OidcSignInError('oidc.exchange_failed', `The provider's answer did not check out (${String(why).slice(0, 120)})`);
        }
        const issuer = config.serverMetadata().issuer;
        const user = await userFor(settings, issuer, claims, meta);
        userId = user.id;
        const signedIn = await deps.uow.run((tx) => completeSignIn(tx, { sessionPolicy: deps.sessionPolicy, clock }, user, { method: 'oidc', details: { issuer } }, meta, browser));
        return { location: `${deps.publicUrl.replace(/\/+$/, '')}${data.return_to}`, signedIn };
      } catch (err) {
        if (!(err instanceof OidcSignInError)) throw err;
        await recordSecurityEvent(store.events, {
          type: 'auth.oidc', outcome: 'failure', reason: err.code, actor: userId ? asUser(userId, meta) : anonymous(meta), userId,
        }, clock);
        return { location: failureUrl(err.code) };
      }
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;
