/**
 * The JSON Schema of configuration documents is kept in the repository (config.schema.json, for
 * editors and pipelines that validate files before they reach Herald) exactly as the service
 * serves it (GET /api/v1/config.schema.json) and checks documents with.
 */
import { readFileSync } from 'node:fs';
import { CONFIG_SCHEMA } from '../../src/domain/config/model.js';

it('config.schema.json is CONFIG_SCHEMA (regenerate it from src/domain/config/model.ts when the format changes)', () => {
  const file = readFileSync(new URL('../../config.schema.json', import.meta.url), 'utf8');
  expect(file).toBe(`${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`);
});
