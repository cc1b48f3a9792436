/**
 * What channel plugin tests hand a plugin: a rendered message like the domain's (facts of a
 * made-up run) and a ChannelContext around a guarded client built by the test.
 */
import { randomUUID } from 'node:crypto';
import type { ChannelContext, ChannelMessage, OutboundHttp } from '../../src/domain/plugins/channel.js';

export function sampleMessage(overrides: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    subject: 'Daily sales: 3 rows',
    body: 'Hello team,\nhere are the sales.',
    table: { columns: ['region', 'total'], rows: [['EU', 12.5], ['US', 7], ['<b>&', null]], totalRows: 3 },
    attachment: null,
    link: null,
    facts: {
      reportId: 'rep_1',
      reportTitle: 'Daily sales',
      runId: 'run_1',
      runStatus: 'success',
      trigger: 'schedule',
      rowCount: 3,
      runAt: new Date('2025-03-04T05:06:07.000Z'),
      runUrl: 'https://herald.example.com/runs/run_1',
      columns: ['region', 'total'],
    },
    ...overrides,
  };
}

export function channelContext(http: OutboundHttp, overrides: Partial<ChannelContext> = {}): ChannelContext {
  return {
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    http,
    messageId: `msg_${randomUUID()}`,
    now: () => new Date(),
    ...overrides,
  };
}
