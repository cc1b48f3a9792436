/**
 * What the deliveries of one run share: the attachment made once from the run's result file
 * (also when they ask for it at the same moment), each template parsed once, and each channel's
 * sealed settings opened once.
 */
import { createAttachmentCache, openedOnce } from '../../src/domain/deliveries/sender.js';
import type { Secrets } from '../../src/core/secrets.js';
import { renderTemplates, type TemplateVariables } from '../../src/domain/deliveries/templates.js';

describe('the attachment cache', () => {
  it('makes an attachment once for deliveries that ask for it at the same moment, and again for another key', async () => {
    const cache = createAttachmentCache({ entries: 4, bytes: 1024, ageMs: 60_000 });
    let made = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const make = async () => { made += 1; await gate; return Buffer.from('a,b\n1,2\n'); };
    const ten = Array.from({ length: 10 }, () => cache.get('result-1|csv|true', make));
    release();
    const contents = await Promise.all(ten);
    expect(made).toBe(1);
    expect(new Set(contents.map((c) => c.toString()))).toEqual(new Set(['a,b\n1,2\n']));
    await cache.get('result-1|csv|true', make);
    expect(made).toBe(1);
    await cache.get('result-2|csv|true', make);
    expect(made).toBe(2);
  });

  it('lets a failed making fail every waiter, and tries again on the next ask', async () => {
    const cache = createAttachmentCache({ entries: 4, bytes: 1024, ageMs: 60_000 });
    let made = 0;
    const failing = async (): Promise<Buffer> => { made += 1; await Promise.resolve(); throw new Error('gone'); };
    const results = await Promise.allSettled([cache.get('k', failing), cache.get('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(made).toBe(1);
    expect((await cache.get('k', async () => { made += 1; return Buffer.from('x'); })).toString()).toBe('x');
    expect(made).toBe(2);
  });
});

describe('delivery templates', () => {
  const vars = (title: string): TemplateVariables => ({
    report: { id: 'r', title, description: null, url: 'https://h/reports/r' },
    run: { id: 'u', status: 'success', trigger: 'manual', created_at: '2026-11-29T07:00:00.000Z', scheduled_for: null, url: 'https://h/runs/u', row_count: 2, condition_met: null },
    query: { id: 'q', name: 'Q', version: 1 }, columns: ['a'], rows: [{ a: 1 }, { a: 2 }], row_count: 2, link: null, instance_url: 'https://h',
  });

  it('renders a template parsed once with each run\'s own variables', async () => {
    const subject = '{{ report.title }}: {{ row_count }} rows';
    const body = '{% for r in rows %}{{ r.a }};{% endfor %}';
    expect(await renderTemplates(subject, body, vars('First'))).toEqual({ subject: 'First: 2 rows', body: '1;2;' });
    expect(await renderTemplates(subject, body, vars('Second'))).toEqual({ subject: 'Second: 2 rows', body: '1;2;' });
    await expect(renderTemplates('{% if %}', body, vars('Bad'))).rejects.toMatchObject({ code: 'delivery.template_failed' });
  });
});

describe('sealed settings opened once', () => {
  /** Seals by reversing (enough to tell values apart) and counts the opens. */
  const counting = () => {
    const opens: string[] = [];
    const secrets: Secrets = {
      seal: (plain, context) => `${context}:${[...plain].reverse().join('')}`,
      open: (sealed, context) => { opens.push(sealed); return [...sealed.slice(context.length + 1)].reverse().join(''); },
    };
    return { secrets, opens };
  };

  it('opens a sealed value once per value and context; a re-sealed or changed value is opened again', () => {
    const { secrets, opens } = counting();
    const once = openedOnce(secrets, 2);
    const a = secrets.seal('{"token":"a"}', 'channels.secrets:1');
    for (let i = 0; i < 5; i += 1) expect(once.open(a, 'channels.secrets:1')).toBe('{"token":"a"}');
    expect(opens).toEqual([a]);
    // Another context (another channel) with the same bytes is its own entry.
    const a2 = `channels.secrets:2:${a.slice('channels.secrets:1:'.length)}`;
    expect(once.open(a2, 'channels.secrets:2')).toBe('{"token":"a"}');
    const b = secrets.seal('{"token":"b"}', 'channels.secrets:1');
    expect(once.open(b, 'channels.secrets:1')).toBe('{"token":"b"}');
    expect(opens).toEqual([a, a2, b]);
    // At most 2 kept: the least recently used (a) went first.
    expect(once.open(a, 'channels.secrets:1')).toBe('{"token":"a"}');
    expect(opens).toEqual([a, a2, b, a]);
    expect(once.seal('x', 'c')).toBe(secrets.seal('x', 'c'));
  });

  it('keeps nothing of a value that does not open', () => {
    const secrets: Secrets = { seal: (p) => p, open: () => { throw new Error('cannot open'); } };
    const once = openedOnce(secrets);
    expect(() => once.open('v2:x:y', 'ctx')).toThrow('cannot open');
    expect(() => once.open('v2:x:y', 'ctx')).toThrow('cannot open');
  });
});
