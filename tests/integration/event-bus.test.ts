/**
 * The event bus on a real Redis (src/infra/events/event-bus.ts): publishAll sends a relay pass's
 * events as one message, and another process's subscriber hears them all, in their order; one
 * event and none are the plain cases; a publisher whose connection is gone rejects, so that the
 * relay gives the events back for a later pass.
 */
import { randomBytes } from 'node:crypto';
import { createRedis } from '../../src/infra/queue/queues.js';
import { createEventBus, type BusEvent } from '../../src/infra/events/event-bus.js';
import { redisUrl } from '../support/env.js';

const prefix = `t_bus_${randomBytes(4).toString('hex')}`;
const publisher = createRedis(redisUrl(), 'client');
const bus = createEventBus({ publisher, prefix, connectSubscriber: () => createRedis(redisUrl(), 'worker') });
const otherPublisher = createRedis(redisUrl(), 'client');
const other = createEventBus({ publisher: otherPublisher, prefix, connectSubscriber: () => createRedis(redisUrl(), 'worker') });
afterAll(async () => {
  await bus.close();
  await other.close();
  publisher.disconnect();
  otherPublisher.disconnect();
});

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not heard in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('publishes a pass of events in their order, heard by another process\'s subscriber', async () => {
  const heard: BusEvent[] = [];
  const unsubscribe = await other.subscribe((event) => heard.push(event));
  const events = Array.from({ length: 25 }, (_, i) => ({ type: i % 2 ? 'run.updated' : 'report.updated', data: { seq: i + 1, id: `r${i}` } }));
  await bus.publishAll(events);
  await until(() => heard.length === 25);
  expect(heard).toEqual(events);
  await bus.publishAll([{ type: 'run.updated', data: { seq: 26 } }]);
  await bus.publishAll([]);
  await until(() => heard.length === 26);
  expect(heard.at(-1)).toEqual({ type: 'run.updated', data: { seq: 26 } });
  await unsubscribe();
});

it('sends a pass of events as one message on the channel, and one event as itself', async () => {
  const raw = createRedis(redisUrl(), 'worker');
  const messages: string[] = [];
  raw.on('message', (_channel: string, message: string) => messages.push(message));
  await raw.subscribe(`${prefix}:events`);
  try {
    const events = Array.from({ length: 1000 }, (_, i) => ({ type: 'run.updated', data: { seq: i + 1 } }));
    await bus.publishAll(events);
    await bus.publishAll([{ type: 'report.updated', data: { seq: 1001 } }]);
    await until(() => messages.length === 2);
    expect(JSON.parse(messages[0]!)).toEqual(events);
    expect(JSON.parse(messages[1]!)).toEqual({ type: 'report.updated', data: { seq: 1001 } });
  } finally {
    raw.disconnect();
  }
});

it('rejects when the events could not be published', async () => {
  const gone = createRedis(redisUrl(), 'client');
  await gone.ping();
  gone.disconnect();
  const cut = createEventBus({ publisher: gone, prefix, connectSubscriber: () => createRedis(redisUrl(), 'worker') });
  await expect(cut.publishAll([{ type: 'a', data: {} }, { type: 'b', data: {} }])).rejects.toThrow();
  await expect(cut.publishAll([{ type: 'a', data: {} }])).rejects.toThrow();
});
