/**
 * The channels and deliveries parts every process kind builds the same way from the container:
 * the stores, the sender (templates, attachments, retries, health) and the context source. The
 * API's services (src/main/app.ts) and the worker's jobs (src/main/worker-jobs.ts) take what they need.
 */
import type { Container } from './container.js';
import { newId } from '../core/ids.js';
import { createDeliverySender } from '../domain/deliveries/sender.js';
import type { DeliveryContextSource } from '../domain/deliveries/deliveries-service.js';
import { createAttemptsRepo, createChannelsRepo, createDeliveriesRepo } from '../infra/db/stores/channels-repo.js';
import { createRunEngineRepo } from '../infra/db/stores/run-engine-repo.js';
import { createRunsRepo } from '../infra/db/stores/runs-repo.js';
import { createLinksRepo } from '../infra/db/stores/links-repo.js';
import { createLinkMaker } from '../domain/links/links-service.js';

type PartsContainer = Pick<Container, 'settings' | 'db' | 'plugins' | 'secretBox' | 'artifacts' | 'channelHttp' | 'events' | 'metrics' | 'clock' | 'logger'>;

/** No single wait between delivery retries is longer (a Retry-After included). */
const MAX_RETRY_WAIT_MS = 60_000;
/** One send's time limit. */
const SEND_TIMEOUT_MS = 30_000;

export function deliveryParts(c: PartsContainer) {
  const channels = createChannelsRepo(c.db);
  const deliveries = createDeliveriesRepo(c.db);
  const attempts = createAttemptsRepo(c.db);
  const runs = createRunsRepo(c.db);
  const engineStore = createRunEngineRepo(c.db);
  const context: DeliveryContextSource = {
    runContext: (reportId, createdBy) => engineStore.runContext(reportId, createdBy),
    latestResultRun: (reportId) => runs.latestResultRun(reportId),
  };
  const links = createLinkMaker({ store: createLinksRepo(c.db), runs, clock: c.clock, publicUrl: c.settings.publicUrl });
  const sender = createDeliverySender({
    links,
    channels, deliveries, attempts, plugins: c.plugins, secrets: c.secretBox, artifacts: c.artifacts,
    http: c.channelHttp, events: c.events, clock: c.clock, log: c.logger.child({ component: 'deliveries' }),
    publicUrl: c.settings.publicUrl, newId,
    metrics: {
      sent: (destination, status, seconds) => {
        c.metrics.deliveriesTotal.inc({ destination, status });
        c.metrics.deliveryDuration.observe({ destination }, seconds);
      },
    },
    retry: { sends: c.settings.deliverySends, baseDelayMs: c.settings.deliveryBackoffMs, maxDelayMs: MAX_RETRY_WAIT_MS, sendTimeoutMs: SEND_TIMEOUT_MS },
  });
  return { channels, deliveries, attempts, runs, context, sender };
}

export type DeliveryParts = ReturnType<typeof deliveryParts>;
