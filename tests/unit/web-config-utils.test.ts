/**
 * The web UI's configuration-as-code helpers (web/src/features/config/utils): field changes as
 * rows (secrets never shown), the download's file name, the export's body from a choice, and the
 * document an import problem points at.
 */
import { diffRows, formatValue } from '../../web/src/features/config/utils/diff.js';
import { fileNameFrom } from '../../web/src/features/config/utils/download.js';
import { canExport, documentIndex, exportBody } from '../../web/src/features/config/utils/exportBody.js';

describe('diffRows', () => {
  it('tells added, removed and changed fields apart, with values as text', () => {
    expect(diffRows([
      { path: 'spec.name', before: 'Old', after: 'New' },
      { path: 'spec.description', after: 'Added' },
      { path: 'spec.schedule', before: { cron: '0 7 * * *', timezone: 'UTC' } },
      { path: 'spec.paused', before: false, after: true },
    ])).toEqual([
      { path: 'spec.name', kind: 'changed', before: 'Old', after: 'New' },
      { path: 'spec.description', kind: 'added', before: null, after: 'Added' },
      { path: 'spec.schedule', kind: 'removed', before: '{"cron":"0 7 * * *","timezone":"UTC"}', after: null },
      { path: 'spec.paused', kind: 'changed', before: 'false', after: 'true' },
    ]);
  });

  it('shows a secret only as what happens to it', () => {
    expect(diffRows([{ path: 'spec.password', secret: 'set' }])).toEqual([
      { path: 'spec.password', kind: 'secret', before: null, after: null, secret: 'set' },
    ]);
  });

  it('keeps null as a value, apart from a missing one', () => {
    expect(diffRows([{ path: 'spec.ssl_ca', before: null, after: 'PEM' }])[0]).toMatchObject({ kind: 'changed', before: 'null', after: 'PEM' });
  });
});

describe('formatValue', () => {
  it('writes strings as they are and everything else as compact JSON', () => {
    expect(formatValue('a "quoted" text')).toBe('a "quoted" text');
    expect(formatValue(3)).toBe('3');
    expect(formatValue(['a', 1])).toBe('["a",1]');
    expect(formatValue(undefined)).toBe('');
  });
});

describe('fileNameFrom', () => {
  it('reads the quoted, plain and RFC 5987 forms, the last winning', () => {
    expect(fileNameFrom('attachment; filename="herald-export-2026-11-22-0800.yaml"', 'x.yaml')).toBe('herald-export-2026-11-22-0800.yaml');
    expect(fileNameFrom('attachment; filename=plain.yaml', 'x.yaml')).toBe('plain.yaml');
    expect(fileNameFrom('attachment; filename="fallback.yaml"; filename*=UTF-8\'\'K%C3%B6ln.yaml', 'x.yaml')).toBe('Köln.yaml');
  });

  it('drops folders and falls back when there is no name', () => {
    expect(fileNameFrom('attachment; filename="../../etc/passwd"', 'x.yaml')).toBe('passwd');
    expect(fileNameFrom('attachment', 'x.yaml')).toBe('x.yaml');
    expect(fileNameFrom(null, 'x.yaml')).toBe('x.yaml');
    expect(fileNameFrom('attachment; filename=""', 'x.yaml')).toBe('x.yaml');
  });
});

describe('exportBody', () => {
  it('exports everything when every kind is chosen', () => {
    expect(exportBody({ kinds: ['report', 'query', 'channel', 'connection'], ids: [], includeDependencies: true })).toEqual({ include_dependencies: true });
  });

  it('names the kinds, in dependency order, when only some are chosen', () => {
    expect(exportBody({ kinds: ['report', 'connection'], ids: [], includeDependencies: false }))
      .toEqual({ kinds: ['connection', 'report'], include_dependencies: false });
  });

  it('exports the chosen resources, once each, whatever the kinds', () => {
    expect(exportBody({ kinds: ['report'], ids: ['a', 'b', 'a'], includeDependencies: true })).toEqual({ ids: ['a', 'b'], include_dependencies: true });
  });

  it('has nothing to export without a kind or a resource', () => {
    expect(canExport({ kinds: [], ids: [], includeDependencies: true })).toBe(false);
    expect(canExport({ kinds: [], ids: ['a'], includeDependencies: true })).toBe(true);
    expect(canExport({ kinds: ['query'], ids: [], includeDependencies: true })).toBe(true);
  });
});

describe('documentIndex', () => {
  it('reads the document of an import problem\'s field', () => {
    expect(documentIndex('documents.2.spec.sql')).toBe(2);
    expect(documentIndex('documents.0')).toBe(0);
    expect(documentIndex('yaml')).toBeNull();
    expect(documentIndex('documents.x.spec')).toBeNull();
  });
});
