/**
 * oidc-provider v9 ships no type declarations (and @types/oidc-provider is not a dependency): this is
 * the narrow slice of its API that tests/support/oidc-peer.ts uses, checked against the package's
 * lib/provider.js, lib/models/grant.js and lib/helpers/defaults.js (9.13.x).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** What the storage adapter keeps for one model instance (tokens, codes, sessions, grants, ...). */
  export interface AdapterPayload {
    [key: string]: unknown;
    consumed?: number;
    grantId?: string;
    uid?: string;
    userCode?: string;
    jti?: string;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export type ClaimsValue = Record<string, unknown>;

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: Record<string, unknown>, rejected: string[]): Promise<ClaimsValue> | ClaimsValue;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris?: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
    id_token_signed_response_alg?: string;
    [key: string]: unknown;
  }

  /** The provider-side view of a request (Koa context); only what a configuration callback here reads. */
  export interface KoaContextWithOIDC {
    [key: string]: unknown;
    type: string;
    body: unknown;
  }

  export interface InteractionInfo {
    uid: string;
  }

  export interface Configuration {
    adapter?: (name: string) => Adapter;
    clients?: ClientMetadata[];
    findAccount?: (ctx: KoaContextWithOIDC, sub: string, token?: unknown) => Promise<Account | undefined> | Account | undefined;
    claims?: Record<string, null | string[]>;
    conformIdTokenClaims?: boolean;
    scopes?: string[];
    responseTypes?: string[];
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: unknown) => boolean };
    cookies?: { keys?: Array<string | Buffer>; names?: Record<string, string> };
    jwks?: { keys: Array<Record<string, unknown>> };
    features?: Record<string, { enabled: boolean; [key: string]: unknown }>;
    interactions?: { url?: (ctx: KoaContextWithOIDC, interaction: InteractionInfo) => Promise<string> | string };
    ttl?: Record<string, number>;
    renderError?: (ctx: KoaContextWithOIDC, out: Record<string, unknown>, error: Error) => Promise<void> | void;
    clientDefaults?: Partial<ClientMetadata>;
    [key: string]: unknown;
  }

  export interface InteractionResults {
    login?: { accountId: string; acr?: string; amr?: string[]; remember?: boolean; ts?: number };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export interface PromptDetail {
    name: string;
    reasons: string[];
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
      [key: string]: unknown;
    };
  }

  export interface Interaction {
    uid: string;
    prompt: PromptDetail;
    params: Record<string, unknown>;
    session?: { accountId: string; uid?: string; cookie?: string };
    grantId?: string;
    returnTo: string;
  }

  export interface Grant {
    jti?: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  export interface GrantModel {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: GrantModel;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default Provider;
}
