/**
 * What the import rules (herald/layers, herald/features) share: where a specifier points, and
 * one visitor for every way a file can import (import and export-from, type-only ones included,
 * dynamic import(), import('x').T types, import x = require() and require()).
 */
import path from 'node:path';

const SOURCE_EXTENSIONS = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts', '.jsx': '.tsx' };

/** A relative or absolute specifier's target as a repository path (the .ts source of a .js name). */
export function resolveFile(specifier, filename, cwd) {
  const absolute = path.resolve(path.dirname(filename), specifier);
  const ext = path.extname(absolute);
  const source = ext in SOURCE_EXTENSIONS ? absolute.slice(0, -ext.length) + SOURCE_EXTENSIONS[ext] : absolute;
  return path.relative(cwd, source).split(path.sep).join('/');
}

const literal = (node) => {
  if (node?.type === 'Literal') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked;
  return undefined;
};
const allTypes = (specifiers, kind) => specifiers.length > 0 && specifiers.every((s) => s[kind] === 'type');

/**
 * The visitors that call `check(node, specifier, typeOnly, declaredType)` for every import:
 * `typeOnly` when nothing of it exists at run time, `declaredType` when the whole declaration
 * says `import type` / `export type` (not only each of its names).
 */
export function importVisitors(check) {
  return {
    ImportDeclaration(node) {
      check(node.source, node.source.value, node.importKind === 'type' || allTypes(node.specifiers, 'importKind'), node.importKind === 'type');
    },
    ExportNamedDeclaration(node) {
      if (node.source) {
        check(node.source, node.source.value, node.exportKind === 'type' || allTypes(node.specifiers, 'exportKind'), node.exportKind === 'type');
      }
    },
    ExportAllDeclaration(node) {
      check(node.source, node.source.value, node.exportKind === 'type');
    },
    ImportExpression(node) {
      check(node.source, literal(node.source), false);
    },
    TSImportType(node) {
      const source = node.source ?? node.argument?.literal;
      check(source ?? node, literal(source), true);
    },
    TSExternalModuleReference(node) {
      check(node.expression, literal(node.expression), node.parent?.importKind === 'type');
    },
    'CallExpression[callee.type="Identifier"][callee.name="require"]'(node) {
      if (node.arguments.length === 1) check(node.arguments[0], literal(node.arguments[0]), false);
    },
  };
}
