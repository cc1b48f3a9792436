/**
 * The AI assistant end to end: GET/PUT /settings/ai and its test, GET /ai/status, POST
 * /ai/generate, against loopback servers that speak the real OpenAI Chat Completions and
 * Anthropic Messages wire formats (tests/support/ai-peers.ts) and a real PostgreSQL source whose
 * rows hold a value that must never leave the instance unless sample values are allowed. Drafts
 * are checked (one read-only statement, tables and columns, EXPLAIN) and repaired once; nothing
 * is saved or run; schedules come from Herald's own phrase parser with the assistant off.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { anthropicPeer, openAiPeer, type AnthropicPeer, type OpenAiPeer } from '../support/ai-peers.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

const ROW_SECRET = 'ROW-VALUE-7f3a';
const PROMPT_MARK = 'prompt-mark-91c2';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let connectionId: string;
let openai: OpenAiPeer;
let anthropic: AnthropicPeer;

async function aiSettings(body: Record<string, unknown>, status = 200) {
  const current = (await admin.get('/api/v1/settings/ai').expect(200)).body as { version: number };
  return admin.put('/api/v1/settings/ai').send({ version: current.version, ...body }).expect(status);
}
const generate = (body: Record<string, unknown>) => editor.post('/api/v1/ai/generate').send(body);
const ordersCount = async () => Number((await src.sql<Array<{ n: string }>>`select count(*)::text as n from orders`)[0]!.n);
const draft = (sql: string, parameters: unknown[] = []) => ({ sql, parameters, explanation: `A draft: ${sql}` });

beforeAll(async () => {
  src = await createPostgresSource(async (sql) => {
    await sql`create table customers (id int primary key, name text not null, email text)`;
    await sql`create table orders (id int primary key, customer_id int references customers(id), status text not null, total numeric(12,2) not null)`;
    await sql`insert into customers values (1, ${ROW_SECRET}, 'a@example.com')`;
    await sql`insert into orders values (1, 1, 'shipped', 10.50), (2, 1, 'open', 99)`;
  });
  openai = await openAiPeer({ apiKey: 'sk-test-123' });
  anthropic = await anthropicPeer({ apiKey: 'ant-test-456' });
  h = await startHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Eddie Editor', email: 'eddie@example.com', role: 'editor' });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id;
}, 30_000);

afterAll(async () => {
  await h?.stop();
  await src?.drop();
  await openai?.close();
  await anthropic?.close();
});

beforeEach(() => { openai.reset(); anthropic.reset(); });

describe('with the assistant off (the default)', () => {
  it('says so in GET /ai/status, and still serves schedules', async () => {
    const viewer = await createSignedInUser(h, admin, { name: 'Vera Viewer', email: 'vera@example.com', role: 'viewer' });
    const status = (await viewer.get('/api/v1/ai/status').expect(200)).body;
    expect(status).toEqual({ available: false, provider: 'off', kinds: ['schedule'], reason: expect.stringContaining('off') });
    expect((await viewer.post('/api/v1/ai/generate').send({ kind: 'schedule', prompt: 'every weekday at 8am' })).status).toBe(403);
  });

  it('turns a sentence into a schedule with Herald\'s own phrase parser, with its description and next times', async () => {
    const res = await generate({ kind: 'schedule', prompt: 'every weekday at 8am', timezone: 'Europe/Berlin' }).expect(200);
    expect(res.body).toMatchObject({ kind: 'schedule', source: 'phrases', schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' } });
    expect(res.body.description).toMatch(/08:00/);
    expect(res.body.next).toHaveLength(5);
    for (const at of res.body.next as string[]) {
      const local = new Date(at).toLocaleString('en-GB', { timeZone: 'Europe/Berlin', weekday: 'short', hour: '2-digit', minute: '2-digit' });
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 08:00$/);
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('answers 422 ai.schedule_not_understood for a phrase it does not know, and 409 ai.disabled for a query', async () => {
    expect((await generate({ kind: 'schedule', prompt: 'every 90 minutes' }).expect(422)).body.code).toBe('ai.schedule_not_understood');
    expect((await generate({ kind: 'query', prompt: 'all orders', connection_id: connectionId }).expect(409)).body.code).toBe('ai.disabled');
  });
});

describe('settings', () => {
  it('chooses a provider with its key (never returned), refuses an unknown one or an address the guard would refuse, and records the change', async () => {
    expect((await aiSettings({ provider: 'gpt-magic' }, 422)).body.errors).toEqual([expect.objectContaining({ field: 'provider', code: 'validation.enum' })]);
    expect((await aiSettings({ provider: 'openai', base_url: 'http://10.1.2.3:11434/v1', model: 'm' }, 422)).body.errors)
      .toEqual([expect.objectContaining({ field: 'base_url', code: 'validation.format' })]);
    const saved = (await aiSettings({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test', api_key: 'sk-test-123' })).body;
    expect(saved).toMatchObject({ provider: 'openai', model: 'gpt-test', api_key: { configured: true }, timeout_seconds: 60, max_tokens: 2000, send_sample_values: false });
    expect(JSON.stringify(saved)).not.toContain('sk-test-123');
    const events = (await admin.get('/api/v1/security-events?type=settings.ai_updated').expect(200)).body.items;
    expect(events[0].details).toMatchObject({ provider: 'openai', api_key_changed: true });
    expect(JSON.stringify(events)).not.toContain('sk-test-123');
    expect((await editor.get('/api/v1/ai/status').expect(200)).body).toEqual({ available: true, provider: 'openai', kinds: ['query', 'schedule'], reason: null });
    expect((await editor.get('/api/v1/settings/ai')).status).toBe(403);
  });

  it('tests unsaved settings with one small request: ok with the model and time, or the error class', async () => {
    openai.script.push(openai.answerJson({ ok: true }));
    const ok = (await admin.post('/api/v1/settings/ai/test').send({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test' }).expect(200)).body;
    expect(ok).toMatchObject({ ok: true, model: 'gpt-test', elapsed_ms: expect.any(Number) });
    expect(openai.requests[0]!.headers.authorization).toBe('Bearer sk-test-123'); // the saved key, kept
    const bad = (await admin.post('/api/v1/settings/ai/test').send({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test', api_key: 'sk-wrong' }).expect(200)).body;
    expect(bad).toMatchObject({ ok: false, error: { code: 'ai.auth_failed' } });
    expect(JSON.stringify(bad)).not.toContain('sk-wrong');
  });
});

describe('query drafts', () => {
  beforeAll(async () => {
    await aiSettings({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test' });
  });

  it('sends the schema as fenced data, never row values, and answers a valid draft checked with EXPLAIN', async () => {
    openai.script.push(openai.answerJson(draft('select o.id, o.total from orders o where o.status = {{ status }}', [{ name: 'status', type: 'string', description: 'The order status' }])));
    const res = await generate({ kind: 'query', prompt: `shipped orders with their totals ${PROMPT_MARK}`, connection_id: connectionId }).expect(200);
    expect(res.body).toEqual({
      kind: 'query', source: 'provider', sql: 'select o.id, o.total from orders o where o.status = {{ status }}',
      parameters: [{ name: 'status', type: 'string', description: 'The order status' }],
      validation: { ok: true, errors: [], explained: true }, repaired: false, explanation: expect.any(String),
    });
    const sent = openai.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-123');
    expect(sent.body).toMatchObject({ model: 'gpt-test', response_format: { type: 'json_schema', json_schema: { name: 'query_draft', strict: true } } });
    const user = sent.body.messages.find((m: { role: string }) => m.role === 'user').content as string;
    expect(user).toMatch(/<schema>[\s\S]*public\.orders: id integer not null, customer_id integer, status text not null, total numeric[\s\S]*<\/schema>/);
    expect(user).toContain(`<request>\nshipped orders with their totals ${PROMPT_MARK}\n</request>`);
    expect(sent.raw).not.toContain(ROW_SECRET);
    // Prompts and drafts are never logged above debug.
    expect(h.logs.join('')).not.toContain(PROMPT_MARK);
    expect(await ordersCount()).toBe(2);
  });

  it('catches a hallucinated column and repairs it in one round with the error', async () => {
    openai.script.push(openai.answerJson(draft('select o.id, o.amount from orders o')), openai.answerJson(draft('select o.id, o.total from orders o')));
    const res = await generate({ kind: 'query', prompt: 'order amounts', connection_id: connectionId }).expect(200);
    expect(res.body).toMatchObject({ sql: 'select o.id, o.total from orders o', repaired: true, validation: { ok: true, explained: true } });
    expect(openai.requests).toHaveLength(2);
    const second = openai.requests[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('o.amount') });
    expect(second.at(-1)!.content).toContain('schema.unknown_column: No column "amount" in "orders"');
  });

  it('refuses a draft that writes, and never runs it', async () => {
    openai.script.push(openai.answerJson(draft('delete from orders')), openai.answerJson(draft('update orders set total = 0')));
    const res = await generate({ kind: 'query', prompt: 'clean up the orders', connection_id: connectionId }).expect(200);
    expect(res.body).toMatchObject({ repaired: true, validation: { ok: false, explained: false, errors: [{ code: 'sql.not_read_only' }] } });
    expect(await ordersCount()).toBe(2);
    openai.script.push(openai.answerJson(draft('select 1; delete from orders')), openai.answerJson(draft('select 1; drop table orders')));
    const two = await generate({ kind: 'query', prompt: 'two things', connection_id: connectionId }).expect(200);
    expect(two.body.validation.errors).toEqual([expect.objectContaining({ code: 'sql.not_one_statement' })]);
    expect(await ordersCount()).toBe(2);
  });

  it('reports what EXPLAIN on the database says, and an unknown table, after the repair round', async () => {
    openai.script.push(openai.answerJson(draft('select id from orders where status = 1')), openai.answerJson(draft('select id from refunds')));
    const res = await generate({ kind: 'query', prompt: 'orders of status one', connection_id: connectionId }).expect(200);
    expect(res.body.validation).toEqual({ ok: false, explained: false, errors: [expect.objectContaining({ code: 'schema.unknown_table', table: 'refunds' })] });
    expect(openai.requests[1]!.body.messages.at(-1).content).toMatch(/explain\.failed: .*operator does not exist: text = integer/);
  });

  it('changes the current draft when one is given', async () => {
    openai.script.push(openai.answerJson(draft('select id, total from orders order by total desc')));
    await generate({ kind: 'query', prompt: 'sort by total', connection_id: connectionId, sql: 'select id, total from orders' }).expect(200);
    expect(openai.requests[0]!.body.messages.at(-1).content).toContain('<current_sql>\nselect id, total from orders\n</current_sql>');
  });

  it('maps the provider\'s errors to problem codes (429 with Retry-After, 5xx, output that is no draft)', async () => {
    openai.script.push(openai.error(429, 'Rate limit reached', { 'retry-after': '7' }));
    const limited = await generate({ kind: 'query', prompt: 'x', connection_id: connectionId }).expect(429);
    expect([limited.body.code, limited.headers['retry-after']]).toEqual(['ai.rate_limited', '7']);
    openai.script.push(openai.error(503, 'Overloaded'));
    expect((await generate({ kind: 'query', prompt: 'x', connection_id: connectionId }).expect(502)).body.code).toBe('ai.unavailable');
    openai.script.push(openai.answerJson({ answer: 'no sql here' }));
    expect((await generate({ kind: 'query', prompt: 'x', connection_id: connectionId }).expect(502)).body.code).toBe('ai.bad_output');
    expect((await generate({ kind: 'query', prompt: 'x' }).expect(422)).body.errors).toEqual([expect.objectContaining({ field: 'connection_id' })]);
  });

  it('opens the ai.failing system problem while the provider fails, and resolves it after a call that works', async () => {
    const tick = () => h.process.services.operations.tick(new Date(), async () => ({ healthy: true, reason: null }));
    const open = async () => (await admin.get('/api/v1/system/problems?state=open&kind=ai.failing').expect(200)).body.items;
    openai.script.push(openai.error(500, 'Internal error'));
    await generate({ kind: 'query', prompt: 'x', connection_id: connectionId }).expect(502);
    await tick();
    expect(await open()).toEqual([expect.objectContaining({ kind: 'ai.failing', severity: 'warning' })]);
    openai.script.push(openai.answerJson(draft('select id from orders')));
    await generate({ kind: 'query', prompt: 'ids', connection_id: connectionId }).expect(200);
    await tick();
    expect(await open()).toEqual([]);
  });

  it('sends a few sample values only when the admin allowed them', async () => {
    await aiSettings({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test', send_sample_values: true });
    try {
      openai.script.push(openai.answerJson(draft('select name from customers')));
      await generate({ kind: 'query', prompt: 'customer names', connection_id: connectionId }).expect(200);
      expect(openai.requests[0]!.raw).toContain(ROW_SECRET);
    } finally {
      await aiSettings({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test', send_sample_values: false });
    }
  });

  it('asks the provider for a schedule phrase Herald does not know, and checks its cron', async () => {
    openai.script.push(openai.answerJson({ cron: '0 */3 * * *', explanation: 'Every three hours' }));
    const res = await generate({ kind: 'schedule', prompt: 'thrice-hourly-ish please', timezone: 'UTC' }).expect(200);
    expect(res.body).toMatchObject({ source: 'provider', schedule: { cron: '0 */3 * * *', timezone: 'UTC' }, next: expect.any(Array) });
    expect(openai.requests[0]!.body.response_format.json_schema.name).toBe('schedule_draft');
  });
  it('refuses a provider cron that restricts both day fields (cron joins them with OR), and reads the accepted one itself', async () => {
    openai.script.push(openai.answerJson({ cron: '0 9 */14 * 5', explanation: 'Every two weeks on Friday' }), openai.answerJson({ cron: '0 9 * * 5', explanation: 'Fridays at nine' }));
    const res = await generate({ kind: 'schedule', prompt: 'every two weeks on friday at 9', timezone: 'UTC' }).expect(200);
    expect(res.body).toMatchObject({ source: 'provider', schedule: { cron: '0 9 * * 5' } });
    expect(res.body.explanation).toContain('Herald reads it as: At 09:00, only on Friday');
    expect(openai.requests[1]!.body.messages.at(-1).content).toContain('joins with OR');
  });
});

describe('the Anthropic provider', () => {
  it('sends the Messages API request with the forced tool and the key header, and checks the draft the same way', async () => {
    await aiSettings({ provider: 'anthropic', base_url: anthropic.baseUrl, model: 'claude-test', api_key: 'ant-test-456' });
    anthropic.script.push(anthropic.answerJson(draft('select c.name, count(*) from customers c join orders o on o.customer_id = c.id group by c.name')));
    const res = await generate({ kind: 'query', prompt: 'orders per customer', connection_id: connectionId }).expect(200);
    expect(res.body.validation).toEqual({ ok: true, errors: [], explained: true });
    const sent = anthropic.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('ant-test-456');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body).toMatchObject({ model: 'claude-test', tool_choice: { type: 'tool', name: 'query_draft' }, tools: [{ name: 'query_draft' }] });
    expect(sent.raw).not.toContain(ROW_SECRET);
  });
});

describe('limits', () => {
  it('refuses a provider on a refused address through the outbound guard', async () => {
    const guarded = await startHerald(); // no SVC_OUTBOUND_ALLOW
    try {
      const a = await setupAdmin(guarded);
      const current = (await a.get('/api/v1/settings/ai').expect(200)).body;
      await a.put('/api/v1/settings/ai').send({ version: current.version, provider: 'openai', base_url: `https://127.0.0.1:${openai.port}/v1`, model: 'gpt-test' }).expect(200);
      const res = (await a.post('/api/v1/settings/ai/test').send({ provider: 'openai', base_url: `https://127.0.0.1:${openai.port}/v1`, model: 'gpt-test' }).expect(200)).body;
      expect(res).toMatchObject({ ok: false, error: { code: 'outbound.refused' } });
      expect(openai.requests).toHaveLength(0);
    } finally {
      await guarded.stop();
    }
  });

  it('limits what asks the provider per user (Herald\'s own phrases are free), and counts each call by kind, provider and outcome', async () => {
    const other = await createSignedInUser(h, admin, { name: 'Rita Rate', email: 'rita@example.com', role: 'editor' });
    const phrases: number[] = [];
    for (let i = 0; i < 25; i += 1) phrases.push((await other.post('/api/v1/ai/generate').send({ kind: 'schedule', prompt: 'daily at noon' })).status);
    expect(new Set(phrases)).toEqual(new Set([200]));
    await aiSettings({ provider: 'openai', base_url: openai.baseUrl, model: 'gpt-test', api_key: 'sk-test-123' });
    openai.fallback = openai.answerJson(draft('select id from orders'));
    const asked: number[] = [];
    for (let i = 0; i < 22; i += 1) asked.push((await other.post('/api/v1/ai/generate').send({ kind: 'query', prompt: 'ids', connection_id: connectionId })).status);
    expect(asked.slice(0, 20).every((c) => c === 200)).toBe(true);
    expect(asked.slice(20)).toEqual([429, 429]);
    expect(openai.requests).toHaveLength(20);
    const metrics = (await h.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/svc_ai_generations_total\{kind="schedule",provider="off",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/svc_ai_generations_total\{kind="query",provider="openai",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/svc_ai_generations_total\{kind="query",provider="openai",outcome="invalid"\} \d+/);
  });
});
