/**
 * A real OpenID Connect provider on loopback (oidc-provider v9) for sign-in tests.
 *
 * Issuer: `http://127.0.0.1:<port>` (no path, no trailing slash); discovery at
 * `<issuer>/.well-known/openid-configuration`, authorization at `/auth`, token at `/token`,
 * userinfo at `/me`, keys at `/jwks`. Authorization code flow only, PKCE (S256) required for every
 * client, client_secret_basic and client_secret_post both accepted (oidc-provider v9 takes either
 * when a client is registered with one of them), ID tokens signed RS256 with a key made per peer.
 *
 * There is no UI: the provider sends the browser to `/interaction/<uid>`, which this file answers
 * itself (not the provider) by finishing the interaction with `provider.interactionFinished`:
 * the login prompt with the account chosen by `signInAs`, the consent prompt by granting what the
 * request asked for. Each answer is a 303 back to the provider's resume endpoint, so the flow is a
 * real chain of redirects: /auth → /interaction/a (login) → /auth/a → /interaction/b (consent) →
 * /auth/b → the client's redirect_uri?code&state&iss. `follow()` walks that chain over HTTP with a
 * cookie jar (path-scoped, as the provider scopes its interaction cookies).
 *
 * Claims: scope `email` gives email and email_verified, `profile` gives name (and the other
 * standard profile claims) plus `groups`, scope `groups` gives groups alone. `conformIdTokenClaims`
 * is off, so these are in the ID token as well as at userinfo. Claim names outside those lists are
 * dropped by the provider unless declared with `extraClaims` (claim → scope that releases it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';
import type { Adapter, AdapterPayload, Configuration, InteractionResults } from 'oidc-provider';

export interface OidcPeerClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Default client_secret_basic; the provider accepts client_secret_post from the same client too. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  groups?: string[];
  [claim: string]: unknown;
}

export interface OidcPeerOptions {
  clients: OidcPeerClient[];
  /** More claims the provider may release: claim name → the scope that releases it (e.g. `{ roles: 'profile' }`). */
  extraClaims?: Record<string, string>;
}

export interface OidcPeer {
  /** The Issuer Identifier, `http://127.0.0.1:<port>` (what the ID token's `iss` and discovery's `issuer` say). */
  issuer: string;
  /** The base URL the provider listens on; the same string as `issuer`. */
  url: string;
  /** The provider itself, for a test that wants its events (`provider.on('grant.success', ...)`). */
  provider: Provider;
  /** How many times /.well-known/openid-configuration has been fetched. */
  discoveryHits: number;
  /** Adds (or replaces, by sub) an account; every field but `sub` is a claim. */
  addAccount(account: OidcAccount): void;
  /**
   * The account the following authorization requests sign in as (it stays until changed); `null`
   * makes the login interaction end with error=access_denied. The account must have been added.
   */
  signInAs(sub: string | null): void;
  /**
   * Walks an authorization URL's redirects with real HTTP and a fresh cookie jar (a new browser,
   * so no earlier session is reused) until a Location leaves the provider's origin; returns that
   * URL (the client's redirect_uri with code, state and iss, or error and error_description).
   * Throws when the provider answers with something other than a redirect (its error page).
   */
  follow(authorizationUrl: string | URL): Promise<URL>;
  close(): Promise<void>;
}

const PROFILE_CLAIMS = [
  'name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile',
  'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at',
];

export async function startOidcPeer(opts: OidcPeerOptions): Promise<OidcPeer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const accounts = new Map<string, OidcAccount>();
  let chosen: string | null = null;

  const scopes: Record<string, string[]> = {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: [...PROFILE_CLAIMS, 'groups'],
    groups: ['groups'],
  };
  for (const [claim, scope] of Object.entries(opts.extraClaims ?? {})) {
    (scopes[scope] ??= []).push(claim);
  }

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };

  const configuration: Configuration = {
    adapter: memoryAdapter(),
    clients: opts.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: c.redirect_uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: c.token_endpoint_auth_method ?? 'client_secret_basic',
    })),
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', ...Object.keys(scopes)],
    claims: { acr: null, sid: null, auth_time: null, iss: null, ...scopes },
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account, sub }) };
    },
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Numbers, so the provider does not print its "you SHOULD change ttl.*" notices.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = JSON.stringify(out);
    },
  };

  const provider = new Provider(issuer, configuration);
  const providerCallback = provider.callback();

  const peer: OidcPeer = {
    issuer,
    url: issuer,
    provider,
    discoveryHits: 0,
    addAccount(account) {
      accounts.set(account.sub, { ...account });
    },
    signInAs(sub) {
      if (sub !== null && !accounts.has(sub)) throw new Error(`oidc peer: no account ${sub}; addAccount first`);
      chosen = sub;
    },
    follow: (authorizationUrl) => follow(new URL(authorizationUrl), new URL(issuer).origin),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };

  async function finishInteraction(req: http.IncomingMessage, res: http.ServerResponse, uid: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error(`oidc peer: interaction cookie is for ${details.uid}, the URL for ${uid}`);
    let result: InteractionResults;
    if (details.prompt.name === 'login') {
      result = chosen === null
        ? { error: 'access_denied', error_description: 'no account chosen with signInAs' }
        : { login: { accountId: chosen } };
    } else if (details.prompt.name === 'consent') {
      const accountId = details.session?.accountId;
      const clientId = details.params['client_id'];
      if (!accountId || typeof clientId !== 'string') throw new Error('oidc peer: consent without a signed-in account or client');
      const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined)
        ?? new provider.Grant({ accountId, clientId });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, resourceScopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, resourceScopes.join(' '));
      }
      result = { consent: { grantId: await grant.save() } };
    } else {
      throw new Error(`oidc peer: unexpected prompt ${details.prompt.name}`);
    }
    // Answers 303 to the provider's resume endpoint (/auth/<uid>).
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
  }

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/.well-known/openid-configuration') peer.discoveryHits += 1;
    const interaction = /^\/interaction\/([^/]+)$/.exec(path);
    if (!interaction) {
      void providerCallback(req, res);
      return;
    }
    finishInteraction(req, res, interaction[1] ?? '').catch((err: unknown) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/plain');
      res.end(`oidc peer interaction failed: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    });
  });

  return peer;
}

// ---- Following redirects like a browser ------------------------------------------------------

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires: number;
}

/** A cookie jar for one host: cookies keyed by name and path, sent where the request path lies under the cookie's path. */
class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  store(requestUrl: URL, setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair = '', ...attributes] = header.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: StoredCookie = {
        name: pair.slice(0, eq).trim(),
        value: pair.slice(eq + 1).trim(),
        path: defaultPath(requestUrl.pathname),
        expires: Infinity,
      };
      for (const attribute of attributes) {
        const [rawKey = '', ...rest] = attribute.split('=');
        const key = rawKey.trim().toLowerCase();
        const value = rest.join('=').trim();
        if (key === 'path' && value.startsWith('/')) cookie.path = value;
        else if (key === 'max-age') cookie.expires = Date.now() + Number(value) * 1000;
        else if (key === 'expires' && cookie.expires === Infinity) cookie.expires = Date.parse(value);
      }
      const key = `${cookie.name}\u0000${cookie.path}`;
      if (cookie.expires <= Date.now()) this.cookies.delete(key);
      else this.cookies.set(key, cookie);
    }
  }

  header(url: URL): string | undefined {
    const now = Date.now();
    const matching = [...this.cookies.values()]
      .filter((c) => c.expires > now && pathMatches(url.pathname, c.path))
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }
}

function defaultPath(requestPath: string): string {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

async function follow(start: URL, providerOrigin: string): Promise<URL> {
  if (start.origin !== providerOrigin) throw new Error(`oidc peer: ${start.href} is not on the provider (${providerOrigin})`);
  const jar = new CookieJar();
  let url = start;
  for (let hop = 0; hop < 20; hop += 1) {
    const headers: Record<string, string> = {};
    const cookie = jar.header(url);
    if (cookie) headers['cookie'] = cookie;
    const response = await fetch(url, { redirect: 'manual', headers });
    jar.store(url, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || !location) {
      const body = await response.text();
      throw new Error(`oidc peer: ${url.pathname} answered ${response.status} instead of a redirect: ${body.slice(0, 500)}`);
    }
    await response.arrayBuffer().catch(() => undefined);
    const next = new URL(location, url);
    if (next.origin !== providerOrigin) return next;
    url = next;
  }
  throw new Error('oidc peer: more than 20 redirects');
}

// ---- Storage ------------------------------------------------------------------------------------

/**
 * Per-peer in-memory storage for the provider's models. Passing our own adapter keeps the
 * library's "development-only in-memory adapter" warning quiet and keeps peers apart (the
 * library's default MemoryAdapter is one store per process).
 */
function memoryAdapter(): (model: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const lookups = new Map<string, string>(); // 'uid:<uid>' / 'userCode:<code>' → id
  const grants = new Map<string, Set<string>>(); // grantId → keys of its tokens and codes

  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };

  return (model) => {
    const keyFor = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyFor(id);
        entries.set(key, { payload, expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity });
        if (model === 'Session' && payload.uid) lookups.set(`uid:${payload.uid}`, id);
        if (payload.userCode) lookups.set(`userCode:${payload.userCode}`, id);
        if (payload.grantId && model !== 'Grant') {
          const members = grants.get(payload.grantId) ?? new Set<string>();
          members.add(key);
          grants.set(payload.grantId, members);
        }
      },
      async find(id) {
        return live(keyFor(id));
      },
      async findByUid(uid) {
        const id = lookups.get(`uid:${uid}`);
        return id === undefined ? undefined : live(keyFor(id));
      },
      async findByUserCode(userCode) {
        const id = lookups.get(`userCode:${userCode}`);
        return id === undefined ? undefined : live(keyFor(id));
      },
      async consume(id) {
        const payload = live(keyFor(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyFor(id));
      },
      async revokeByGrantId(grantId) {
        for (const key of grants.get(grantId) ?? []) entries.delete(key);
        grants.delete(grantId);
      },
    };
  };
}
