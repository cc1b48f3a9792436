/**
 * herald/layers: a file under src/ imports only the layers its own layer may know (the table of
 * docs/architecture.md, "Layers"). Every import and export-from,
 * type-only ones included (layers are about knowledge, not only about runtime), dynamic import(),
 * import('x').T types and require() are resolved to their target: a relative specifier to the
 * source file (`.js` → `.ts`), a bare one to its package. An import against the table is an error
 * that names the rule it breaks.
 */
import path from 'node:path';
import { importVisitors, resolveFile } from './imports.js';
import { builtinModules } from 'node:module';

/** Drivers and frameworks the domain (and what sits below or beside it) never knows. */
const ADAPTER_PACKAGES = [
  'drizzle-orm', 'express', 'postgres', 'ioredis', 'bullmq', 'openapi-backend', 'nodemailer', 'prom-client',
  'winston', 'mysql2',
];

/**
 * Each layer: what it is, the zones it may import, the zones it may import for their types only
 * (`import type`, erased from the output), the packages it may not import, and the packages it may
 * import for their types only.
 */
export const LAYERS = {
  core: {
    what: 'the shared kernel', may: ['core', 'error-codes'], packages: ADAPTER_PACKAGES, typesOnly: [],
  },
  domain: {
    what: 'rules and transactions: it declares ports, src/infra implements them',
    may: ['core', 'domain'], packages: ADAPTER_PACKAGES, typesOnly: [],
  },
  infra: {
    // Adapters implement the domain's ports: they name the port and model types they implement
    // and return, and never run domain code.
    what: 'adapters of the domain\'s ports',
    may: ['core', 'infra'], typesFrom: ['domain'], packages: [], typesOnly: [],
  },
  handlers: {
    what: 'one typed handler per operation', may: ['core', 'domain', 'handlers', 'generated', 'error-codes'],
    packages: [], typesOnly: [],
  },
  jobs: {
    what: 'the job catalog and job handlers',
    may: ['core', 'domain', 'jobs'], packages: ADAPTER_PACKAGES.filter((p) => p !== 'bullmq'), typesOnly: ['bullmq'],
  },
  http: {
    what: 'the HTTP edge', may: ['core', 'domain', 'handlers', 'infra', 'generated', 'error-codes', 'http'],
    packages: [], typesOnly: [],
  },
  plugins: {
    what: 'connector and channel plugins',
    may: ['core', 'domain', 'plugins'], packages: [], typesOnly: [],
  },
};

const ZONE_NAMES = {
  'error-codes': 'src/generated/error-codes.ts',
  root: 'the composition root, src/main or src/cli.ts',
  unlayered: 'in no layer',
};
const zoneName = (zone) => ZONE_NAMES[zone] ?? `src/${zone}`;

/**
 * The zone of a path relative to the repository root: a layer, 'error-codes' (the one generated
 * file the kernel may read), 'generated', 'root' (the composition root: src/main, where the
 * processes are wired and run, and the command src/cli.ts beside it), 'unlayered' (elsewhere
 * under src/), or null (outside src/).
 */
export function zoneOf(relative) {
  const parts = relative.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return null;
  if (parts.length === 2 || parts[1] === 'main') return 'root';
  if (relative === 'src/generated/error-codes.ts') return 'error-codes';
  if (parts[1] === 'generated') return 'generated';
  return parts[1] in LAYERS ? parts[1] : 'unlayered';
}

/** A bare specifier's package ('drizzle-orm/pg-core' → 'drizzle-orm'), or null for Node's own modules. */
function packageOf(specifier) {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** @type {import('eslint').Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid imports against the layer table (src/core, domain, infra, handlers, jobs, http, plugins)' },
    schema: [],
    messages: {
      backwards: 'Layer rule broken: src/{{layer}} ({{what}}) may import only {{allowed}}; "{{specifier}}" is {{target}} ({{zone}}).',
      zoneTypes:
        'Layer rule broken: src/{{layer}} ({{what}}) may import {{zone}} for its types only (ports and models); "{{specifier}}" is {{target}}: use `import type`.',
      package: 'Layer rule broken: src/{{layer}} ({{what}}) may not import the package "{{pkg}}" ("{{specifier}}").',
      packageTypes:
        'Layer rule broken: src/{{layer}} ({{what}}) may import the package "{{pkg}}" for its types only ("{{specifier}}"): use `import type`.',
    },
  },
  create(context) {
    const cwd = context.cwd;
    const filename = context.filename;
    if (!path.isAbsolute(filename)) return {};
    const here = zoneOf(path.relative(cwd, filename).split(path.sep).join('/'));
    const layer = here && LAYERS[here];
    if (!layer) return {}; // outside src/, the composition root, or generated: no limits here

    // typeOnly: every name imported is a type; erased: the whole statement is (`import type`,
    // `export type`, an import() type), so under verbatimModuleSyntax nothing of it is loaded.
    const check = (node, specifier, typeOnly, erased = typeOnly) => {
      if (typeof specifier !== 'string' || specifier === '') return;
      const data = { layer: here, what: layer.what, specifier };
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = resolveFile(specifier, filename, cwd);
        const zone = zoneOf(target);
        if (zone === null || layer.may.includes(zone)) return;
        if (layer.typesFrom?.includes(zone)) {
          if (!erased) context.report({ node, messageId: 'zoneTypes', data: { ...data, target, zone: zoneName(zone) } });
          return;
        }
        context.report({
          node, messageId: 'backwards',
          data: { ...data, allowed: layer.may.map(zoneName).join(', '), target, zone: zoneName(zone) },
        });
        return;
      }
      const pkg = packageOf(specifier);
      if (pkg === null) return;
      if (layer.packages.includes(pkg)) context.report({ node, messageId: 'package', data: { ...data, pkg } });
      else if (layer.typesOnly.includes(pkg) && !typeOnly) context.report({ node, messageId: 'packageTypes', data: { ...data, pkg } });
    };
    return importVisitors(check);
  },
};

/** The plugin eslint.config.js loads: the rule is `herald/layers`. */
export const heraldPlugin = { meta: { name: 'herald' }, rules: { layers: layersRule } };
