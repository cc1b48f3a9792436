/**
 * PluginSettingsForm's pure part (web/src/components/schema-form.ts): the input each JSON Schema
 * field asks for, defaults, and what a form sends (secrets only when typed, null to remove).
 */
import { fieldsOf, humanize, isConfigured, kindOf, valueToSend, withDefaults, type JsonSchema } from '../../web/src/components/schema-form.js';

const webhook: JsonSchema = {
  type: 'object', required: ['url'],
  properties: {
    url: { type: 'string', format: 'uri' },
    headers: { type: 'object', 'x-secret': true, additionalProperties: { type: 'string' } },
    signing_secret: { type: 'string', 'x-secret': true },
    cross_origin_redirects: { type: 'string', enum: ['follow', 'refuse'], default: 'follow' },
  },
};

const everything: JsonSchema = {
  type: 'object', required: ['name', 'tls'],
  properties: {
    name: { type: 'string' },
    password: { type: 'string', format: 'password', 'x-secret': true },
    plain: { type: 'string', format: 'password' },
    port: { type: 'integer', default: 587 },
    ratio: { type: 'number' },
    verbose: { type: 'boolean', default: false },
    to: { type: 'array', items: { type: 'string', format: 'email' } },
    days: { type: 'array', items: { type: 'string', enum: ['mon', 'tue'] } },
    tls: { type: 'object', required: ['mode'], properties: { mode: { type: 'string', enum: ['a', 'b'], default: 'a' }, ca: { type: 'string' } } },
    extra: { type: 'object', additionalProperties: { type: 'string' } },
    odd: { type: 'array', items: { type: 'object' } },
  },
};

it('tells each field its kind of input, in the schema order, with required', () => {
  expect(fieldsOf(webhook).map((f) => [f.name, f.kind, f.required])).toEqual([
    ['url', 'string', true], ['headers', 'secretMap', false], ['signing_secret', 'secret', false], ['cross_origin_redirects', 'enum', false],
  ]);
  expect(fieldsOf(everything).map((f) => f.kind)).toEqual(
    ['string', 'secret', 'password', 'integer', 'number', 'boolean', 'stringList', 'enumList', 'object', 'map', 'json']);
  expect(kindOf({ type: ['string', 'null'] })).toBe('string');
  expect(fieldsOf({ type: 'object' })).toEqual([]);
});

it('fills in defaults of missing fields, nested ones too, never secrets, keeping what is there', () => {
  expect(withDefaults(webhook, {})).toEqual({ cross_origin_redirects: 'follow' });
  expect(withDefaults(webhook, { cross_origin_redirects: 'refuse', signing_secret: { configured: true } }))
    .toEqual({ cross_origin_redirects: 'refuse', signing_secret: { configured: true } });
  expect(withDefaults(everything)).toEqual({ port: 587, verbose: false, tls: { mode: 'a' } });
});

it('sends a secret only when typed: kept when untouched or left blank, null when removed', () => {
  expect(isConfigured({ configured: true })).toBe(true);
  expect(isConfigured({ configured: true, x: 1 })).toBe(false);
  expect(valueToSend(webhook, { url: 'https://x', headers: { configured: true }, signing_secret: { configured: true } })).toEqual({ url: 'https://x' });
  expect(valueToSend(webhook, { url: 'https://x', signing_secret: 'whsec_new', headers: null })).toEqual({ url: 'https://x', signing_secret: 'whsec_new', headers: null });
  expect(valueToSend(webhook, { url: 'https://x', signing_secret: '' })).toEqual({ url: 'https://x' });
  expect(valueToSend(webhook, { url: 'https://x', headers: { Authorization: 'Bearer t', '': 'blank row' } })).toEqual({ url: 'https://x', headers: { Authorization: 'Bearer t' } });
});

it('leaves out empty texts and empty optional objects, drops blank list entries, keeps unknown fields', () => {
  expect(valueToSend(everything, {
    name: 'n', plain: '', port: 25, to: ['a@example.com', ' '], tls: { mode: 'b', ca: '' }, extra: { '': 'x', k: 'v' }, other: 1,
  })).toEqual({ name: 'n', port: 25, to: ['a@example.com'], tls: { mode: 'b' }, extra: { k: 'v' }, other: 1 });
  expect(valueToSend({ type: 'object', properties: { o: { type: 'object', properties: { a: { type: 'string' } } } } }, { o: { a: '' } })).toEqual({});
  expect(valueToSend(everything, { ratio: null, name: null })).toEqual({ ratio: null });
});

it('names a field without a label as a person reads it', () => {
  expect(humanize('signing_secret')).toBe('Signing secret');
  expect(humanize('accessKeyId')).toBe('Access key id');
});
