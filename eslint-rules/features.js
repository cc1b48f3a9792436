/**
 * herald/features: a feature of the domain (a folder of src/domain) imports only the features its
 * row of FEATURE_EDGES lists, and the table has no circle, so the features stay one directed,
 * acyclic graph: a new circle fails the build. Every import and export-from, type-only ones
 * included (an edge is about knowledge, not only about runtime), dynamic import(), import('x').T
 * types and require() count. Imports outside src/domain are the layer rule's (eslint-rules/layers.js).
 *
 * The unit of work (src/domain/unit-of-work) is the one aggregation point: its port hands a
 * service every repository bound to one transaction, so it names the ports of the features in its
 * row of AGGREGATES, and every feature may name it. Both ways the import is `import type` only (it
 * holds no code), and it stands outside the circle check: an edge through it carries no behaviour.
 */
import path from 'node:path';
import { importVisitors, resolveFile } from './imports.js';

/**
 * Each feature and the features it may import. Kept acyclic (checked when the rule loads): a
 * feature lower in the graph never learns of one above it; the one above depends on a port the
 * lower one declares instead (the run engine's DeliverRun and JudgeCondition, which deliveries and
 * reports implement).
 */
export const FEATURE_EDGES = {
  // Leaves: the plugin interfaces, the shared event vocabulary, identity (users, sessions, keys:
  // the model and ports the identity features share), schedules, health, and the reads' row
  // stamps (the port the API's ETags of connections, queries, channels, users and runs read).
  plugins: [],
  events: [],
  identity: [],
  schedules: [],
  health: [],
  reads: [],
  // The audit trail (security events) every feature that changes something writes.
  audit: ['identity'],
  // The identity features: API keys, users, workspace settings, and signing in (passwords, two
  // factors, passkeys, OIDC, sessions, first-run setup, authenticating a request).
  'api-keys': ['audit', 'identity'],
  users: ['audit', 'identity'],
  workspace: ['audit', 'identity'],
  'sign-in': ['api-keys', 'audit', 'identity', 'workspace'],
  artifacts: ['plugins'],
  connections: ['audit', 'identity', 'plugins'],
  channels: ['audit', 'connections', 'identity', 'plugins'],
  queries: ['audit', 'connections', 'identity', 'plugins'],
  // A run executes a query on a connection; it carries its report's condition as a copy and has it
  // judged through its JudgeCondition port; it lists its delivery attempts (channels' records).
  runs: ['artifacts', 'channels', 'connections', 'events', 'plugins', 'queries', 'schedules'],
  // A report: a query, its parameters, a schedule and a condition (reports/condition.ts, which
  // implements the run engine's JudgeCondition); it knows its runs (the last one, those to stop).
  reports: ['artifacts', 'audit', 'events', 'identity', 'plugins', 'queries', 'runs', 'schedules'],
  results: ['artifacts', 'channels', 'plugins', 'runs'],
  links: ['audit', 'channels', 'identity', 'results', 'runs'],
  // Deliveries send a finished run's result: they implement the run engine's DeliverRun port.
  deliveries: ['artifacts', 'audit', 'channels', 'connections', 'events', 'identity', 'links', 'plugins', 'results', 'runs'],
  // Configuration as code: exports the resources and applies documents through their services.
  config: ['audit', 'channels', 'connections', 'deliveries', 'identity', 'plugins', 'queries', 'reports', 'schedules'],
  // Operations: system problems, alerts through the channels' sender and the heartbeat; in-app
  // notifications written from the features' events (the outbox); the dashboard's read model.
  alerts: ['audit', 'channels', 'deliveries', 'events', 'health', 'identity', 'plugins'],
  notifications: ['events', 'identity'],
  dashboard: ['alerts', 'health', 'identity'],
  // The AI assistant: English schedule phrases to crons, checked by the schedules' validation.
  assistant: ['audit', 'connections', 'identity', 'plugins', 'queries', 'schedules'],
};

/** Aggregation points (type-only, both ways) and the features whose ports each one gathers. */
export const AGGREGATES = {
  'unit-of-work': ['channels', 'connections', 'events', 'identity', 'links', 'notifications', 'queries', 'reports', 'runs'],
};

/**
 * A circle in `edges` as the list of features around it (the first repeated at the end), or null
 * when there is none. Depth-first, in the table's order, so the answer is stable.
 */
export function findCircle(edges) {
  const state = new Map(); // feature → 'open' (on the current path) | 'done'
  const trail = [];
  const visit = (feature) => {
    if (state.get(feature) === 'done') return null;
    if (state.get(feature) === 'open') return [...trail.slice(trail.indexOf(feature)), feature];
    state.set(feature, 'open');
    trail.push(feature);
    for (const next of edges[feature] ?? []) {
      const circle = visit(next);
      if (circle) return circle;
    }
    trail.pop();
    state.set(feature, 'done');
    return null;
  };
  for (const feature of Object.keys(edges)) {
    const circle = visit(feature);
    if (circle) return circle;
  }
  return null;
}

{
  const circle = findCircle(FEATURE_EDGES);
  if (circle) throw new Error(`eslint-rules/features.js: FEATURE_EDGES has a circle: ${circle.join(' → ')}`);
}

/** The feature (folder of src/domain) of a repository path, or null outside src/domain/<folder>/. */
export function featureOf(relative) {
  const parts = relative.split('/');
  return parts[0] === 'src' && parts[1] === 'domain' && parts.length > 3 ? parts[2] : null;
}

const list = (names) => (names.length ? names.map((n) => `src/domain/${n}`).join(', ') : 'no other feature');

/** @type {import('eslint').Rule.RuleModule} */
export const featuresRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid imports between the features of src/domain that FEATURE_EDGES does not list, and circles in that table' },
    schema: [{
      type: 'object',
      properties: { edges: { type: 'object' }, aggregates: { type: 'object' } },
      additionalProperties: false,
    }],
    messages: {
      edge: 'Feature rule broken: src/domain/{{from}} may import only {{allowed}}; "{{specifier}}" is src/domain/{{to}}. '
        + 'An edge joins FEATURE_EDGES (eslint-rules/features.js) only if it makes no circle; otherwise depend on a port.',
      unknown: 'Feature rule broken: src/domain/{{from}} has no row in FEATURE_EDGES (eslint-rules/features.js); "{{specifier}}" is src/domain/{{to}}.',
      aggregate: 'Feature rule broken: src/domain/{{hub}} is an aggregation point of types: "{{specifier}}" must be `import type` / `export type`.',
      circle: 'Feature rule broken: FEATURE_EDGES has a circle: {{circle}}.',
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const edges = options.edges ?? FEATURE_EDGES;
    const aggregates = options.aggregates ?? AGGREGATES;
    const cwd = context.cwd;
    const filename = context.filename;
    if (!path.isAbsolute(filename)) return {};
    const here = featureOf(path.relative(cwd, filename).split(path.sep).join('/'));
    if (here === null) return {};
    const circle = findCircle(edges);

    const check = (node, specifier, erased) => {
      if (typeof specifier !== 'string' || !(specifier.startsWith('.') || specifier.startsWith('/'))) return;
      const to = featureOf(resolveFile(specifier, filename, cwd));
      if (to === null || to === here) return;
      if (here in aggregates || to in aggregates) {
        const hub = here in aggregates ? here : to;
        const allowed = here in aggregates ? aggregates[here].includes(to) : true;
        if (!allowed) {
          context.report({ node, messageId: 'edge', data: { from: here, to, specifier, allowed: list(aggregates[here]) } });
        } else if (!erased) {
          context.report({ node, messageId: 'aggregate', data: { hub, specifier } });
        }
        return;
      }
      if (!(here in edges)) {
        context.report({ node, messageId: 'unknown', data: { from: here, to, specifier } });
        return;
      }
      if (!edges[here].includes(to)) {
        context.report({ node, messageId: 'edge', data: { from: here, to, specifier, allowed: list(edges[here]) } });
      }
    };
    return {
      Program(node) {
        if (circle) context.report({ node, messageId: 'circle', data: { circle: circle.join(' → ') } });
      },
      ...importVisitors(check),
    };
  },
};
