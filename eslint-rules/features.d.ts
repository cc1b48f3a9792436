/** Types of eslint-rules/features.js for the tests that read its table. */
import type { Rule } from 'eslint';

export const FEATURE_EDGES: Record<string, string[]>;
export const AGGREGATES: Record<string, string[]>;
export function findCircle(edges: Record<string, readonly string[]>): string[] | null;
export function featureOf(relative: string): string | null;
export const featuresRule: Rule.RuleModule;
