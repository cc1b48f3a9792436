/** @herald/sdk: Herald's API client, typed from openapi.yaml. */
export { createClient, SDK_VERSION, type ClientOptions, type HeraldClient, type CallArgs } from './client.js';
export { HeraldError, RunFailedError, RunTimeoutError, type Problem, type FieldError } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { EtagOptions } from './conditional.js';
export type { Download, DownloadOptions } from './download.js';
export type { EventsOptions } from './events.js';
export type { FinishedRun, RunReportOptions } from './run-report.js';
export type { CallParams, CallResult, HeraldEvent, OperationId, PaginatedOperationId, PageItem, Run, Schemas } from './types.js';
export type { ProblemCode } from './generated/operations.js';
export type { paths, components, operations } from './generated/schema.js';
