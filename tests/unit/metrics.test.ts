/**
 * The svc_* metrics with the labels of the spec's table: each is fed once and its samples read
 * back in the exposition format, so a renamed or missing label fails here.
 */
import { createMetrics } from '../../src/infra/metrics/metrics.js';

it('exposes each svc_* metric with exactly the labels of the spec', async () => {
  const m = createMetrics('9.8.7', { queuePending: async () => 3, storageBytes: async () => 4096 });
  m.runsTotal.inc({ status: 'success', trigger: 'manual' });
  m.runDuration.observe(1.5);
  m.queryRows.observe(42);
  m.deliveriesTotal.inc({ destination: 'email', status: 'sent' });
  m.deliveryDuration.observe({ destination: 'email' }, 0.2);
  m.schedulerLag.set(0.75);
  const text = await m.registry.metrics();
  const lines = text.split('\n');
  for (const expected of [
    'svc_runs_total{status="success",trigger="manual"} 1',
    'svc_run_duration_seconds_count 1',
    'svc_query_rows_sum 42',
    'svc_deliveries_total{destination="email",status="sent"} 1',
    'svc_delivery_duration_seconds_count{destination="email"} 1',
    'svc_queue_pending 3',
    'svc_storage_bytes 4096',
    'svc_scheduler_lag_seconds 0.75',
    'svc_build_info{version="9.8.7"} 1',
  ]) expect(lines).toContain(expected);
});

it('keeps a shared gauge\'s last value when its store does not answer, and reports why', async () => {
  let fail = false;
  const errors: unknown[] = [];
  const m = createMetrics('1.0.0', {
    queuePending: async () => { if (fail) throw new Error('redis down'); return 7; },
    storageBytes: async () => 0,
  }, (err) => errors.push(err));
  expect(await m.registry.metrics()).toContain('svc_queue_pending 7');
  fail = true;
  expect(await m.registry.metrics()).toContain('svc_queue_pending 7');
  expect(errors).toHaveLength(1);
});
