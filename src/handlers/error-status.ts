/**
 * Error codes to HTTP statuses and titles. The catalogue is openapi.yaml's
 * components.x-problem-codes and x-field-codes (generated into src/generated/error-codes.ts);
 * domain code throws codes, and only this module knows which status each answers with.
 */
import { fieldCodes, problemCodes } from '../generated/error-codes.js';

const problems: Readonly<Record<string, { status: number; title: string; description?: string }>> = problemCodes;
const fields: Readonly<Record<string, string>> = fieldCodes;

/** The status of a problem code; an uncatalogued code is a fault of ours (500). */
export function statusForCode(code: string): number {
  return problems[code]?.status ?? 500;
}

/** The short explanation of a problem or per-field code, served at /docs/errors/{code} and used as problem titles. */
export function titleForCode(code: string): string {
  return problems[code]?.title ?? fields[code] ?? 'Request failed';
}

/** The longer explanation of a problem code, where the catalogue gives one. */
export function descriptionForCode(code: string): string | undefined {
  return problems[code]?.description;
}

/** Every code with a page at /docs/errors/{code}. */
export const documentedCodes = (): string[] => [...Object.keys(problems), ...Object.keys(fields)];

export const isProblemCode = (code: string): boolean => code in problems;
export const isFieldCode = (code: string): boolean => code in fields;
