/**
 * Every column that holds values sealed by the secret box, so that `herald rotate-secret-key`
 * can re-seal them all with the current key. A feature that stores a secret field adds one line
 * here (e.g. `sealedColumn('connections', 'password')`) and seals its values with the context
 * this entry names (`contextOf(entry, id)`, by default "<table>.<column>:<id>").
 */
export interface SealedColumn {
  table: string;
  /** The row's primary key column. */
  idColumn: string;
  column: string;
  /** The associated data a value is sealed with; "{id}" stands for the row's id. */
  context: string;
}

export function sealedColumn(table: string, column: string, options: { idColumn?: string; context?: string } = {}): SealedColumn {
  return { table, column, idColumn: options.idColumn ?? 'id', context: options.context ?? `${table}.${column}:{id}` };
}

/** The context a value of this column, in this row, is sealed with. */
export function contextOf(entry: SealedColumn, id: string): string {
  return entry.context.replaceAll('{id}', id);
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  // The authenticator-app secret of two-factor sign-in, and the one being enrolled (src/domain/sign-in/two-factor-service.ts).
  sealedColumn('users', 'totp_secret'),
  sealedColumn('users', 'totp_pending_secret'),
  // Secret fields of workspace settings objects (the OIDC client secret), one sealed JSON object per key.
  sealedColumn('workspace_settings', 'secrets_sealed', { idColumn: 'key', context: 'workspace_settings.secrets:{id}' }),
  // Connection passwords (src/domain/connections/pools.ts passwordContext: connections.password:<id>).
  sealedColumn('connections', 'password_sealed', { context: 'connections.password:{id}' }),
  // Every secret field of a channel's settings, as one sealed JSON object (src/domain/channels/channel-settings.ts).
  sealedColumn('channels', 'secrets_sealed', { context: 'channels.secrets:{id}' }),
];
