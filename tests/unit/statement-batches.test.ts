/**
 * One statement for the calls that meet (src/infra/db/statement-batches.ts), over a `send` of the
 * test's own that records each batch and answers when the test says: a call goes out at once when
 * none is out; the calls made meanwhile go together next, in order, at most maxBatch, never two
 * with one key; a batch the store refuses (a PostgresError) goes again call by call, so only the
 * faulty call fails; any other failure is every call's of that batch, and the next batch still goes.
 */
import postgres from 'postgres';
import { refusedByStore, statementBatches } from '../../src/infra/db/statement-batches.js';

interface Sent { items: string[]; answer(results?: string[]): void; fail(err: unknown): void }

function recording(options: { maxBatch?: number } = {}) {
  const sent: Sent[] = [];
  const call = statementBatches<string, string>({
    keyOf: (item) => item.split('#')[0]!,
    ...options,
    send: (items) => new Promise<string[]>((resolve, reject) => {
      sent.push({ items: [...items], answer: (results) => resolve(results ?? items.map((i) => `done ${i}`)), fail: reject });
    }),
  });
  return { sent, call };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** A refusal as postgres.js gives it (the server's ErrorResponse). */
const refusal = (code = '22P02') => Object.assign(Object.create(postgres.PostgresError.prototype) as Error, { message: `refused ${code}`, code });

it('sends a call at once, and the calls made while it is out together next', async () => {
  const { sent, call } = recording();
  const first = call('a');
  expect(sent.map((s) => s.items)).toEqual([['a']]);
  const rest = ['b', 'c', 'd'].map((i) => call(i));
  await turn();
  expect(sent).toHaveLength(1);
  sent[0]!.answer();
  expect(await first).toBe('done a');
  await turn();
  expect(sent.map((s) => s.items)).toEqual([['a'], ['b', 'c', 'd']]);
  sent[1]!.answer();
  expect(await Promise.all(rest)).toEqual(['done b', 'done c', 'done d']);
});

it('puts at most maxBatch calls in one statement, and never two with one key', async () => {
  const { sent, call } = recording({ maxBatch: 3 });
  const all = [call('x'), call('a'), call('b'), call('a#2'), call('c'), call('d'), call('e')];
  sent[0]!.answer();
  await turn();
  expect(sent[1]!.items).toEqual(['a', 'b', 'c']);
  sent[1]!.answer();
  await turn();
  expect(sent[2]!.items).toEqual(['a#2', 'd', 'e']);
  sent[2]!.answer();
  expect(await Promise.all(all)).toEqual(['x', 'a', 'b', 'a#2', 'c', 'd', 'e'].map((i) => `done ${i}`));
});

it('sends a batch the store refused again call by call: only the faulty call fails', async () => {
  const { sent, call } = recording();
  const first = call('first');
  const batch = ['a', 'bad', 'c'].map((i) => call(i).then((v) => ({ v }), (e: unknown) => ({ e })));
  sent[0]!.answer();
  await first;
  await turn();
  sent[1]!.fail(refusal());
  await turn();
  expect(sent.slice(2).map((s) => s.items)).toEqual([['a'], ['bad'], ['c']]);
  for (const s of sent.slice(2)) {
    if (s.items[0] === 'bad') s.fail(refusal());
    else s.answer();
  }
  const results = await Promise.all(batch);
  expect(results[0]).toEqual({ v: 'done a' });
  expect((results[1] as { e: Error }).e.message).toBe('refused 22P02');
  expect(results[2]).toEqual({ v: 'done c' });
});

it('fails every call of a batch lost otherwise (the commit unknown), and sends the next batch', async () => {
  const { sent, call } = recording();
  const first = call('first');
  const lost = ['a', 'b'].map((i) => call(i).then((v) => ({ v }), (e: unknown) => ({ e })));
  sent[0]!.answer();
  await first;
  await turn();
  const later = call('later');
  sent[1]!.fail(new Error('write CONNECTION_CLOSED'));
  for (const r of await Promise.all(lost)) expect((r as { e: Error }).e.message).toBe('write CONNECTION_CLOSED');
  await turn();
  expect(sent).toHaveLength(3);
  expect(sent[2]!.items).toEqual(['later']);
  sent[2]!.answer();
  expect(await later).toBe('done later');
});

it('fails the calls when a batch answers a result count of its own', async () => {
  const { sent, call } = recording();
  const one = call('one').catch((e: Error) => e.message);
  sent[0]!.answer(['x', 'y']);
  expect(await one).toBe('a batch of 1 answered 2 results');
});

it('tells a refusal for what one call holds from other failures', () => {
  for (const code of ['22P02', '22021', '23505', '40P01', '40001']) expect(refusedByStore(refusal(code))).toBe(true);
  for (const code of ['55P03', '57014', '57P01', '53300', '42601']) expect(refusedByStore(refusal(code))).toBe(false);
  expect(refusedByStore(new Error('connection lost'))).toBe(false);
});

it('sends a refused call that went alone once, and fails it', async () => {
  const { sent, call } = recording();
  const one = call('one').catch((e: Error) => e.message);
  sent[0]!.fail(refusal());
  expect(await one).toBe('refused 22P02');
  await turn();
  expect(sent).toHaveLength(1);
});

it('fails every call of a batch refused for a lock timeout at once, without sending them again', async () => {
  const { sent, call } = recording();
  const first = call('first');
  const batch = ['a', 'b'].map((i) => call(i).catch((e: Error) => e.message));
  sent[0]!.answer();
  await first;
  await turn();
  sent[1]!.fail(refusal('55P03'));
  expect(await Promise.all(batch)).toEqual(['refused 55P03', 'refused 55P03']);
  await turn();
  expect(sent).toHaveLength(2);
});

it('holds the calls made while a refused batch goes again call by call until those are answered', async () => {
  const { sent, call } = recording();
  const first = call('first');
  const batch = ['a', 'b'].map((i) => call(i));
  sent[0]!.answer();
  await first;
  await turn();
  sent[1]!.fail(refusal('40P01'));
  await turn();
  const later = call('later');
  await turn();
  expect(sent.slice(2).map((s) => s.items)).toEqual([['a'], ['b']]);
  sent[2]!.answer();
  await turn();
  expect(sent).toHaveLength(4);
  sent[3]!.answer();
  expect(await Promise.all(batch)).toEqual(['done a', 'done b']);
  await turn();
  expect(sent[4]!.items).toEqual(['later']);
  sent[4]!.answer();
  expect(await later).toBe('done later');
});
