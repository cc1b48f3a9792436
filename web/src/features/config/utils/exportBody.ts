/**
 * The body of POST /export from what a person chose: the chosen resources (by id) when any,
 * else the chosen kinds (left out when all are chosen, which exports everything).
 */
export type ConfigKind = 'connection' | 'query' | 'channel' | 'report';
export const CONFIG_KINDS: ConfigKind[] = ['connection', 'query', 'channel', 'report'];

export interface ExportChoice {
  kinds: ConfigKind[];
  ids: string[];
  includeDependencies: boolean;
}

export interface ExportBody {
  kinds?: ConfigKind[];
  ids?: string[];
  include_dependencies: boolean;
}

export function exportBody(choice: ExportChoice): ExportBody {
  if (choice.ids.length > 0) return { ids: [...new Set(choice.ids)], include_dependencies: choice.includeDependencies };
  const kinds = CONFIG_KINDS.filter((k) => choice.kinds.includes(k));
  if (kinds.length === 0 || kinds.length === CONFIG_KINDS.length) return { include_dependencies: choice.includeDependencies };
  return { kinds, include_dependencies: choice.includeDependencies };
}

/** Whether the choice exports anything: a resource, or at least one kind. */
export const canExport = (choice: ExportChoice): boolean => choice.ids.length > 0 || choice.kinds.length > 0;

/** The document an import problem's field points at: `documents.2.spec.sql` → 2 (0-based), else null. */
export function documentIndex(field: string): number | null {
  const m = /^documents\.(\d+)(?:\.|$)/.exec(field);
  return m ? Number(m[1]) : null;
}
