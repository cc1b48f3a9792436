/**
 * The audit trail's filters as the contract offers them (listSecurityEvents: type and user_id),
 * kept in the page's address (?type=…&user=…) so a filtered trail can be shared and reloaded.
 * A value the contract would refuse (not a type's shape, not a UUID) is dropped rather than sent.
 */
export interface AuditFilters {
  type?: string;
  user?: string;
}

const TYPE = /^[a-z_]+\.[a-z_]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseFilters(params: URLSearchParams): AuditFilters {
  const type = params.get('type') ?? '';
  const user = params.get('user') ?? '';
  return {
    ...(TYPE.test(type) && type.length <= 64 ? { type } : {}),
    ...(UUID.test(user) ? { user } : {}),
  };
}

/** The address's query string with `change` applied (an empty value removes the filter). */
export function withFilter(params: URLSearchParams, change: Partial<Record<keyof AuditFilters, string | null>>): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [name, value] of Object.entries(change)) {
    if (value) next.set(name, value); else next.delete(name);
  }
  return next;
}

/** The query parameters of listSecurityEvents for the filters. */
export function eventsQuery(filters: AuditFilters): { type?: string; user_id?: string } {
  return { ...(filters.type ? { type: filters.type } : {}), ...(filters.user ? { user_id: filters.user } : {}) };
}

/**
 * The event types Herald records (the contract's SecurityEvent.type and the server's list), in
 * groups for the type filter. Later features add types: an unknown one shows as it is.
 */
export const EVENT_TYPE_GROUPS: Record<string, string[]> = {
  auth: [
    'auth.sign_in', 'auth.sign_out', 'auth.second_factor', 'auth.recovery_code_used', 'auth.oidc',
    'auth.password_changed', 'auth.password_reset_requested', 'auth.password_reset_completed',
  ],
  session: ['session.revoked', 'session.revoked_all'],
  user: ['setup.completed', 'user.created', 'user.role_changed', 'user.enabled_changed', 'user.password_reset_by_admin'],
  second_factor: [
    'two_factor.setup_started', 'two_factor.enabled', 'two_factor.disabled', 'two_factor.recovery_codes_replaced',
    'passkey.added', 'passkey.renamed', 'passkey.removed', 'passkey.clone_refused', 'oidc.linked',
  ],
  api_key: ['api_key.created', 'api_key.revoked', 'api_key.rejected'],
  resources: [
    'connection.created', 'connection.updated', 'connection.deleted',
    'channel.created', 'channel.updated', 'channel.deleted',
    'delivery.created', 'delivery.updated', 'delivery.deleted',
    'link.created', 'link.revoked',
  ],
  config: ['config.applied', 'gitops.detached', 'gitops.attached'],
  settings: ['settings.updated', 'settings.oidc_updated', 'settings.alerts_updated', 'settings.alerts_tested', 'settings.ai_updated'],
};

export const EVENT_TYPES: string[] = Object.values(EVENT_TYPE_GROUPS).flat();
