/**
 * The web UI's channels helpers (web/src/features/channels/utils/channelForm.ts): where the form
 * starts from, what it sends (stored secrets left out unless replaced or removed), and the
 * attempts a retry queued, by run.
 */
import { createBody, initialForm, queuedByRun, updateBody } from '../../web/src/features/channels/utils/channelForm.js';
import type { JsonSchema } from '../../web/src/components/schema-form.js';

const WEBHOOK: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', format: 'uri' },
    headers: { type: 'object', 'x-secret': true, additionalProperties: { type: 'string' } },
    signing_secret: { type: 'string', 'x-secret': true },
    cross_origin_redirects: { type: 'string', enum: ['follow', 'refuse'], default: 'follow' },
  },
};

describe('the channel form', () => {
  it('starts a new channel with no type, then with the plugin’s defaults', () => {
    expect(initialForm(undefined)).toEqual({ name: '', type: null, settings: {} });
    expect(initialForm(WEBHOOK).settings).toEqual({ cross_origin_redirects: 'follow' });
  });

  it('starts a saved channel from its settings, secrets as the API shows them', () => {
    const form = initialForm(WEBHOOK, { name: 'Ops', type: 'webhook', settings: { url: 'https://x.example/h', headers: { configured: true } } });
    expect(form).toEqual({ name: 'Ops', type: 'webhook', settings: { url: 'https://x.example/h', headers: { configured: true }, cross_origin_redirects: 'follow' } });
  });

  it('creates with the typed settings, the name trimmed', () => {
    expect(createBody(WEBHOOK, { name: ' Ops ', type: 'webhook', settings: { url: 'https://x.example/h', headers: { Authorization: 'Bearer t', '': '' }, signing_secret: '' } }))
      .toEqual({ name: 'Ops', type: 'webhook', settings: { url: 'https://x.example/h', headers: { Authorization: 'Bearer t' } } });
  });

  it('leaves a stored secret out of a change (kept), sends a replaced one and null for a removed one', () => {
    const settings = { url: 'https://x.example/h', headers: { configured: true }, signing_secret: null };
    expect(updateBody(WEBHOOK, { name: 'Ops', type: 'webhook', settings }, 3))
      .toEqual({ name: 'Ops', settings: { url: 'https://x.example/h', signing_secret: null }, version: 3 });
    expect(updateBody(WEBHOOK, { name: 'Ops', type: 'webhook', settings: { ...settings, headers: { 'X-Token': 'new' } } }, 4).settings)
      .toMatchObject({ headers: { 'X-Token': 'new' } });
  });
});

describe('the attempts a retry queued', () => {
  it('groups them by run, in the order answered', () => {
    const a = (id: string, run: string, position = 1) => ({ id, run_id: run, position, channel_name: 'Ops' });
    expect(queuedByRun([a('1', 'r1'), a('2', 'r2'), a('3', 'r1', 2)])).toEqual([
      { runId: 'r1', attempts: [a('1', 'r1'), a('3', 'r1', 2)] },
      { runId: 'r2', attempts: [a('2', 'r2')] },
    ]);
    expect(queuedByRun([])).toEqual([]);
  });
});
