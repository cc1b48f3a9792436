import type { Handler } from '../types.js';
import { proposalView } from '../ai-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'assistant'>;

export const generateWithAi = (d: Deps): Handler<'generateWithAi'> => async (req) => {
  const b = req.body;
  const proposal = await d.assistant.generate(
    { kind: b.kind, prompt: b.prompt, connectionId: b.connection_id, sql: b.sql, timezone: b.timezone },
    { userId: req.ctx.principal?.user.id ?? null },
  );
  return { status: 200, body: proposalView(proposal) };
};
