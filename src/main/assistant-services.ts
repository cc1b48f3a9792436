/**
 * The AI assistant in the one wiring (createServices, ./services.ts): its settings (provider
 * plugins of kind ai, through the outbound guard) and the assistant that proposes queries and
 * schedules, limited per user and counted by kind, provider and outcome.
 */
import type { Container } from './container.js';
import type { ConnectionsService } from '../domain/connections/connections-service.js';
import { createAiSettingsService } from '../domain/assistant/ai-settings.js';
import { createAssistantService } from '../domain/assistant/assistant-service.js';
import { createConnectionContext } from '../domain/assistant/connection-context.js';
import { AI_GENERATE_QUOTA, createQuota } from '../infra/ratelimit/attempt-guard.js';
import { ambientDb } from '../infra/db/ambient.js';
import { createOpsStatusRepo } from '../infra/db/stores/alerts-repo.js';

export function assistantServices(
  c: Pick<Container, 'repos' | 'identity' | 'uow' | 'secretBox' | 'clock' | 'plugins' | 'channelHttp' | 'pools' | 'redis' | 'settings' | 'metrics' | 'logger' | 'db'>,
  connections: Pick<ConnectionsService, 'schema' | 'refreshSchema'>,
) {
  const ai = createAiSettingsService({
    settings: c.identity.settings, uow: c.uow, secrets: c.secretBox, clock: c.clock, plugins: c.plugins, outbound: c.channelHttp,
  });
  const quota = createQuota(c.redis, c.settings.queuePrefix, AI_GENERATE_QUOTA);
  const status = createOpsStatusRepo(ambientDb(c.db));
  return {
    aiSettings: ai,
    assistant: createAssistantService({
      ai,
      connections: createConnectionContext({
        connections: c.repos.connections, pools: c.pools,
        schema: (id) => connections.schema(id), refreshSchema: (id) => connections.refreshSchema(id),
      }),
      outbound: c.channelHttp,
      clock: c.clock,
      log: c.logger.child({ component: 'assistant' }),
      quota: (userId) => quota.take(userId),
      counted: (kind, provider, outcome) => c.metrics.aiGenerationsTotal.inc({ kind, provider, outcome }),
      providerHealth: async (ok, error) => {
        const before = await status.get('ai');
        if (ok && before?.failing !== true) return;
        await status.put('ai', ok ? { failing: false, error: null, since: null }
          : { failing: true, error: error?.slice(0, 300) ?? null, since: before?.failing === true ? before.since : c.clock.now().toISOString() }, c.clock.now());
      },
    }),
  };
}
