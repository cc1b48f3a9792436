import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadSettings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';

const CURRENT = Buffer.alloc(32, 31);
const PREVIOUS = [Buffer.alloc(32, 32), Buffer.alloc(32, 33)];

it('registers every key for redaction: current, previous and derived, in base64 and base64url', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-logger-'));
  try {
    const settings = loadSettings({
      SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/herald', SVC_REDIS_URL: 'redis://127.0.0.1:6379',
      SVC_SECRET_KEY: CURRENT.toString('base64'), SVC_SECRET_KEY_PREVIOUS: PREVIOUS.map((k) => k.toString('base64')).join(','),
      SVC_LOG_FORMAT: 'json', SVC_DATA_DIR: dir,
    }, { cwd: dir });
    const lines: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _e, done) { lines.push(chunk.toString('utf8')); done(); } });
    const logger = createProcessLogger(settings, stream);
    const keys = [CURRENT, ...PREVIOUS, ...settings.keys.hmacKeys, settings.keys.current.encryption, ...settings.keys.previous.map((k) => k.encryption)];
    const forms = keys.flatMap((k) => [k.toString('base64'), k.toString('base64url')]);
    for (const form of forms) logger.info(`a careless line with ${form} in it`, { note: `and ${form}` });
    const text = lines.join('');
    expect(lines).toHaveLength(forms.length);
    for (const form of forms) expect(text).not.toContain(form);
    expect(text).toContain('a careless line with [redacted] in it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
