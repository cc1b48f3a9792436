/**
 * Error codes to HTTP statuses and titles. The catalogue is openapi.yaml's
 * components.x-problem-codes and x-field-codes (generated into src/generated/error-codes.ts);
 * domain code throws codes, and only this module knows which status each answers with.
 */
import { fieldCodes, problemCodes } from '../generated/error-codes.js';

const problems: Readonly<Record<string, { status: number; title: string; description: string; action: string }>> = problemCodes;
const fields: Readonly<Record<string, string>> = fieldCodes;

/** The status of a problem code; an uncatalogued code is a fault of ours (500). */
export function statusForCode(code: string): number {
  return problems[code]?.status ?? 500;
}

/** The short explanation of a problem or per-field code, served at /docs/errors/{code} and used as problem titles. */
export function titleForCode(code: string): string {
  return problems[code]?.title ?? fields[code] ?? 'Request failed';
}

/** What causes a problem code (every catalogued problem code has one). */
export function descriptionForCode(code: string): string | undefined {
  return problems[code]?.description;
}

/** What a caller should do about a problem code (every catalogued problem code has one). */
export function actionForCode(code: string): string | undefined {
  return problems[code]?.action;
}

/** Every code with a page at /docs/errors/{code}. */
export const documentedCodes = (): string[] => [...Object.keys(problems), ...Object.keys(fields)];

export const isProblemCode = (code: string): boolean => code in problems;
export const isFieldCode = (code: string): boolean => code in fields;
