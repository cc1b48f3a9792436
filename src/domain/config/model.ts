/**
 * Configuration as code: the document format. A configuration file is multi-document YAML, one
 * resource per document:
 *
 *   apiVersion: herald/v1
 *   kind: Report                  # Connection, Query, Channel, Report
 *   metadata: { name: daily-sales }   # the resource's key: a stable slug, unique per kind
 *   spec: { title: …, query: sales-by-region, … }
 *
 * Resources refer to each other by key, never by id. Secret fields read `{configured: true}` in
 * an export (an import keeps the stored value) and may be written as `${env:NAME}`,
 * `${file:/path}` or a literal. CONFIG_SCHEMA is the JSON Schema of one document, served at
 * /api/v1/config.schema.json and kept as config.schema.json in the repository.
 */

/** The kinds, in dependency order: what a later kind refers to comes first. */
export const CONFIG_KINDS = ['connection', 'query', 'channel', 'report'] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

export const API_VERSION = 'herald/v1';

/** The kind as a document spells it. */
export const DOCUMENT_KIND: Record<ConfigKind, string> = { connection: 'Connection', query: 'Query', channel: 'Channel', report: 'Report' };
export const KIND_OF_DOCUMENT: Record<string, ConfigKind> = { Connection: 'connection', Query: 'query', Channel: 'channel', Report: 'report' };

/** A key: what metadata.name holds (the resources' `key`). */
export const KEY_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** The value a secret field reads as in an export: keep what is stored. */
export const CONFIGURED = { configured: true } as const;

/** One resource of a configuration file, as read. */
export interface ConfigDocument {
  /** 0-based, in the order of the file (of all the files, for a directory). */
  index: number;
  /** The line the document starts on (1-based), where known. */
  line: number | null;
  /** The file it came from (a configuration directory), when there is one. */
  source: string | null;
  kind: ConfigKind;
  /** metadata.name: the resource's key. */
  name: string;
  spec: Record<string, unknown>;
  /** Where each spec field is, by dotted path (spec.schedule.cron → line), where known. */
  lines: Map<string, number>;
}

/** What a change does to one field (secrets only as set, unchanged or missing). */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
  secret?: 'set' | 'unchanged' | 'missing';
}

export type ChangeAction = 'create' | 'update' | 'delete' | 'unchanged';

export interface PlannedChange {
  kind: ConfigKind;
  name: string;
  action: ChangeAction;
  id: string | null;
  /** The document's index; null for a deletion. */
  document: number | null;
  diff: FieldChange[];
  /**
   * The configuration directory's resource an admin detached: left alone (action unchanged),
   * its diff is the drift the directory's copy would bring back.
   */
  detached?: boolean;
  /** The file of the document, when it came from one. */
  source?: string | null;
}

export interface Plan {
  changes: PlannedChange[];
  summary: Record<ChangeAction, number>;
  /** sha256 over the changes and the versions of what they touch: the same plan, the same hash. */
  hash: string;
}

const secret = {
  oneOf: [
    { type: 'string', minLength: 1, description: 'the value, ${env:NAME} or ${file:/path}' },
    { type: 'object', required: ['configured'], additionalProperties: false, properties: { configured: { const: true } }, description: 'keep the stored value' },
  ],
};
const key = { type: 'string', pattern: KEY_PATTERN };
const parameterValue = { type: ['string', 'number', 'boolean', 'null'] };

/** The JSON Schema (draft-07, what the service's validator reads) of one configuration document. */
export const CONFIG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:herald:config:v1',
  title: 'Herald configuration document (apiVersion herald/v1)',
  description: 'One resource per YAML document: a Connection, Query, Channel or Report, referring to the others by key (metadata.name).',
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: API_VERSION },
    kind: { enum: Object.values(DOCUMENT_KIND) },
    metadata: {
      type: 'object', required: ['name'], additionalProperties: false,
      properties: { name: { ...key, description: 'The resource\'s key: a stable slug, unique per kind' } },
    },
    spec: { type: 'object' },
  },
  allOf: [
    { if: { properties: { kind: { const: 'Connection' } } }, then: { properties: { spec: { $ref: '#/definitions/connection' } } } },
    { if: { properties: { kind: { const: 'Query' } } }, then: { properties: { spec: { $ref: '#/definitions/query' } } } },
    { if: { properties: { kind: { const: 'Channel' } } }, then: { properties: { spec: { $ref: '#/definitions/channel' } } } },
    { if: { properties: { kind: { const: 'Report' } } }, then: { properties: { spec: { $ref: '#/definitions/report' } } } },
  ],
  definitions: {
    secret,
    connection: {
      type: 'object',
      required: ['name', 'type', 'host', 'database', 'username'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        type: { type: 'string', description: 'The connector: postgres, mysql, …' },
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        database: { type: 'string', minLength: 1 },
        username: { type: 'string', minLength: 1 },
        password: { $ref: '#/definitions/secret' },
        ssl_mode: { type: 'string' },
        ssl_ca: { type: ['string', 'null'] },
        options: { type: 'object' },
      },
    },
    query: {
      type: 'object',
      required: ['name', 'connection', 'sql'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        description: { type: ['string', 'null'] },
        connection: { ...key, description: 'The key of the connection it runs on' },
        sql: { type: 'string', minLength: 1 },
        parameters: {
          type: 'array',
          items: {
            type: 'object', required: ['name', 'type'], additionalProperties: false,
            properties: {
              name: { type: 'string' }, type: { type: 'string' }, default: parameterValue,
              required: { type: 'boolean' }, description: { type: 'string' },
            },
          },
        },
      },
    },
    channel: {
      type: 'object',
      required: ['name', 'type', 'settings'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        type: { type: 'string', description: 'The channel plugin: email, webhook, slack, teams, s3, …' },
        settings: { type: 'object', description: 'The plugin\'s settings; its secret fields as in #/definitions/secret' },
      },
    },
    report: {
      type: 'object',
      required: ['title', 'query'],
      additionalProperties: false,
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        description: { type: ['string', 'null'] },
        query: { ...key, description: 'The key of its query' },
        query_version: { type: ['integer', 'null'], minimum: 1 },
        parameters: { type: 'object', additionalProperties: parameterValue },
        schedule: {
          oneOf: [
            { type: 'null' },
            { type: 'object', required: ['cron', 'timezone'], additionalProperties: false, properties: { cron: { type: 'string' }, timezone: { type: 'string' } } },
          ],
        },
        condition: { type: ['object', 'null'] },
        paused: { type: 'boolean' },
        deliveries: {
          type: 'array',
          items: {
            type: 'object', required: ['channel'], additionalProperties: false,
            properties: { channel: { ...key, description: 'The key of the channel' }, settings: { type: 'object' } },
          },
        },
      },
    },
  },
} as const;
