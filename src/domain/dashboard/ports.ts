/** The ports of the dashboard: its read model (implemented by src/infra/db/stores/dashboard-read-model.ts). */
import type { DashboardFigures, FiguresQuery } from './model.js';

export interface DashboardReadModel {
  /**
   * Every figure of the home page as the store holds it, in one snapshot; each part is read
   * through an index, never by scanning runs.
   */
  figures(query: FiguresQuery): Promise<DashboardFigures>;
}
