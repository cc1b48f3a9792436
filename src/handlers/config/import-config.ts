import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import type { Plan } from '../../domain/config/model.js';
import type { components } from '../../generated/openapi.js';

type Schemas = components['schemas'];
import { actorOf } from '../identity-views.js';

type Deps = Pick<ApiServices, 'config'>;

function resultView(mode: 'plan' | 'apply', plan: Plan): Schemas['ImportResult'] {
  return {
    mode, applied: mode === 'apply', plan_hash: plan.hash, summary: plan.summary,
    changes: plan.changes.map((c) => ({ kind: c.kind, name: c.name, action: c.action, id: c.id, document: c.document, diff: c.diff })),
  };
}

export const importConfig = (d: Deps): Handler<'importConfig'> => async (req) => {
  const b = req.body;
  const sources = [{ path: null, text: b.yaml }];
  const plan = b.mode === 'plan'
    ? await d.config.plan(sources, { prune: b.prune, by: 'import' })
    : await d.config.apply(sources, { prune: b.prune, planHash: b.plan_hash, by: 'import', actor: actorOf(req.ctx) });
  return { status: 200, body: resultView(b.mode, plan) };
};
