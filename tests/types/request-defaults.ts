/**
 * Compile-time proof that a `default` in openapi.yaml does not make a request field required in
 * the generated types (codegen passes defaultNonNullable: false to openapi-typescript), while
 * truly required fields stay required and responses keep the fields they always carry.
 * `make test` type-checks this file (`npm run typecheck`); each @ts-expect-error must stay an error.
 */
import type { components, operations } from '../../src/generated/openapi.js';

/** The JSON request body of an operation, as a generated client (openapi-fetch) asks for it. */
type Body<K extends keyof operations> =
  operations[K] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Schemas = components['schemas'];

const id = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';

// POST /schedules/preview: count (default 5) may be left out.
export const schedulePreview: Body<'previewSchedule'> = { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' };
// @ts-expect-error cron has no default: it is required
export const schedulePreviewWithoutCron: Body<'previewSchedule'> = { timezone: 'Europe/Berlin' };

// POST /reports: paused (default false) may be left out.
export const report: Body<'createReport'> = { title: 'Daily sales', query_id: id };
// @ts-expect-error query_id is required
export const reportWithoutQuery: Body<'createReport'> = { title: 'Daily sales' };

// POST /queries/preview: limit (500) and timeout_seconds (15) may be left out.
export const queryPreview: Body<'previewQuery'> = { connection_id: id, sql: 'select 1' };

// POST /reports/{id}/run: deliver (default true) may be left out.
export const manualRun: Body<'runReport'> = {};

// POST /links: expires_in_days (default 7) may be left out.
export const link: Body<'createLink'> = { run_id: id, format: 'csv' };
// @ts-expect-error run_id is required
export const linkWithoutRun: Body<'createLink'> = { format: 'csv' };

// POST /queries: a parameter's `required` (default false) may be left out.
export const query: Body<'createQuery'> = {
  name: 'Sales', connection_id: id, sql: 'select * from sales where region = {{ region }}',
  parameters: [{ name: 'region', type: 'string' }],
};
// @ts-expect-error a parameter's type is required
export const queryParameterWithoutType: Body<'createQuery'> = { name: 'Sales', connection_id: id, sql: 'select 1', parameters: [{ name: 'region' }] };

// POST /reports/{id}/deliveries: inline_rows, send_when_skipped and link.expires_in_days may be left out.
export const delivery: Body<'createDelivery'> = { channel_id: id, settings: { attach: 'csv', link: { format: 'xlsx' } } };
// @ts-expect-error settings are required
export const deliveryWithoutSettings: Body<'createDelivery'> = { channel_id: id };

// Responses stay exact: what the server always fills in is not optional when read back.
export const readRequired = (q: Schemas['Query']): boolean => q.parameters[0]!.required;
export const readLinkDays = (d: Schemas['Delivery']): number | null => (d.settings.link ? d.settings.link.expires_in_days : null);
export const readInlineRows = (d: Schemas['Delivery']): number => d.settings.inline_rows;
// @ts-expect-error a query parameter read back always carries `required`
export const parameterWithoutRequired: Schemas['Query']['parameters'][number] = { name: 'region', type: 'string' };
// @ts-expect-error a delivery read back always carries inline_rows and send_when_skipped
export const settingsWithoutDefaults: Schemas['Delivery']['settings'] = { attach: null, link: null, subject: 's', body: 'b' };
