import type { Response } from 'express';
import { statusForCode, titleForCode } from '../handlers/error-status.js';
import type { DomainErrorExtras } from '../core/errors.js';
import type { components } from '../generated/openapi.js';
import { endWith } from './respond.js';

/** The Problem schema of openapi.yaml. */
export type ProblemDocument = components['schemas']['Problem'];

/** Extension members some codes add (required_role / required_scope on 403 auth.forbidden). */
export type ProblemMembers = Pick<ProblemDocument, 'required_role' | 'required_scope'>;

export function buildProblem(
  errorsBase: string, requestId: string, code: string, detail?: string, extras: DomainErrorExtras = {}, members: ProblemMembers = {},
): ProblemDocument {
  const status = statusForCode(code);
  const problem: ProblemDocument = {
    type: `${errorsBase}/${code}`,
    title: titleForCode(code),
    status,
    code,
    i18n_key: `errors.${code}`,
    request_id: requestId,
  };
  if (detail !== undefined && status < 500) problem.detail = detail;
  if (extras.errors && extras.errors.length > 0) problem.errors = extras.errors;
  if (extras.dependents) problem.dependents = extras.dependents;
  return { ...problem, ...members };
}

export function sendProblem(res: Response, problem: ProblemDocument, retryAfterSeconds?: number): void {
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  res.status(problem.status);
  endWith(res, 'application/problem+json', `${JSON.stringify(problem)}\n`);
}
