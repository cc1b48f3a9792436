/**
 * The connection form's pure parts (web/src/features/connections/utils/settings.ts): a saved
 * connection's settings, what an edit sends beyond valueToSend (emptied texts and objects), the
 * test's body, the defaults' objects, and the schema browser's filter.
 */
import { editedSettings, matchesTable, settingsOf, startObjects, testBody } from '../../web/src/features/connections/utils/settings.js';

const FIELDS = ['host', 'port', 'database', 'username', 'password', 'ssl_mode', 'ssl_ca', 'options'];

it('reads the settings of a saved connection: the fields the schema names, nulls left out', () => {
  const saved = settingsOf(FIELDS, {
    id: 'c1', name: 'Shop', type: 'postgres', host: 'db', port: 5432, database: 'shop', username: 'ro',
    password: { configured: true }, ssl_mode: 'disable', ssl_ca: null, options: { application_name: 'herald' }, version: 3,
  });
  expect(saved).toEqual({
    host: 'db', port: 5432, database: 'shop', username: 'ro', password: { configured: true }, ssl_mode: 'disable',
    options: { application_name: 'herald' },
  });
});

it('sends an emptied optional text as null, an emptied required one as empty, an emptied object as {}', () => {
  const saved = { host: 'db', database: 'shop', ssl_ca: '-----BEGIN CERTIFICATE-----', options: { search_path: 'sales' }, password: { configured: true } };
  // valueToSend left out the empty texts and the emptied options; the stored password stays out.
  const sent = { database: 'shop' };
  const form = { host: '', database: 'shop', ssl_ca: '', options: { search_path: '' }, password: { configured: true } };
  expect(editedSettings(sent, form, saved, ['host', 'database', 'username'])).toEqual({ database: 'shop', host: '', ssl_ca: null, options: {} });
});

it('leaves what valueToSend gave alone: a kept password, a removed one, unchanged fields', () => {
  const saved = { host: 'db', ssl_ca: 'pem', options: { search_path: 'sales' }, password: { configured: true } };
  const sent = { host: 'db2', ssl_ca: 'pem', options: { search_path: 'sales' } };
  expect(editedSettings(sent, { ...saved, host: 'db2' }, saved, ['host'])).toEqual(sent);
  const removed = { ...sent, password: null };
  expect(editedSettings(removed, { ...saved, password: null }, saved, ['host'])).toEqual(removed);
  // Never set before: nothing to clear.
  expect(editedSettings({}, { ssl_ca: '', options: {} }, { options: {} }, [])).toEqual({});
});

it('tests a new connection by its type, an edit over its saved connection', () => {
  expect(testBody('postgres', { host: 'db' })).toEqual({ type: 'postgres', host: 'db' });
  expect(testBody('postgres', { host: 'db' }, 'c1')).toEqual({ connection_id: 'c1', host: 'db' });
});

it('starts the objects of a schema empty so their defaults fill in', () => {
  expect(startObjects({ properties: { host: { type: 'string' }, options: { type: 'object', properties: {} }, extra: { type: 'object' } } }))
    .toEqual({ options: {} });
  expect(startObjects({})).toEqual({});
});

it('filters tables by schema and name or by a column, ignoring case', () => {
  const orders = { schema: 'public', name: 'Orders', columns: [{ name: 'id' }, { name: 'customer_email' }] };
  expect(matchesTable(orders, '')).toBe(true);
  expect(matchesTable(orders, 'public.ord')).toBe(true);
  expect(matchesTable(orders, 'EMAIL')).toBe(true);
  expect(matchesTable(orders, 'invoices')).toBe(false);
});
