/**
 * Code never branches on a plugin's id: what a plugin can do is in its manifest. The domain asks
 * `sendsToPeople` (the `recipients` capability, with `recipientsOf`) where it once asked whether
 * the channel was email; and a plugin's send error carries a code of the catalogue.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtInPlugins, createPluginRegistry } from '../../src/plugins/registry.js';
import { RECIPIENTS_CAPABILITY, sendsToPeople, type ChannelPlugin } from '../../src/domain/plugins/channel.js';
import { problemCodes } from '../../src/generated/error-codes.js';

const root = fileURLToPath(new URL('../../src', import.meta.url));
const filesUnder = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const p = path.join(dir, name);
  return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
});

it('no code outside the plugins compares a plugin id with a literal', () => {
  const registry = createPluginRegistry(builtInPlugins);
  const ids = registry.list().map((p) => p.id);
  const pattern = new RegExp(`(===|!==)\\s*'(${ids.join('|')})'|'(${ids.join('|')})'\\s*(===|!==)`);
  const offenders = filesUnder(root)
    .filter((f) => !f.includes(`${path.sep}plugins${path.sep}`) && !f.includes(`${path.sep}generated${path.sep}`))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ f: path.relative(root, f), line: i + 1, text: line }))
      .filter((l) => pattern.test(l.text)));
  expect(offenders).toEqual([]);
});

it('the email plugin has the recipients capability and names its recipients; the others have neither', () => {
  const registry = createPluginRegistry(builtInPlugins);
  const channels = registry.list().filter((p) => p.kind === 'channel').map((p) => registry.channel(p.id)!) as ChannelPlugin[];
  for (const plugin of channels) {
    const has = plugin.manifest.capabilities.includes(RECIPIENTS_CAPABILITY);
    expect([plugin.manifest.id, sendsToPeople(plugin), typeof plugin.recipientsOf === 'function']).toEqual([plugin.manifest.id, has, has]);
    for (const locale of Object.keys(plugin.manifest.translations)) {
      for (const c of plugin.manifest.capabilities) expect(plugin.manifest.translations[locale]![`capabilities.${c}`]).toEqual(expect.any(String));
    }
  }
  const email = registry.channel('email')!;
  expect(sendsToPeople(email)).toBe(true);
  expect(email.recipientsOf!({ to: ['a@example.com'], cc: ['b@example.com'], bcc: ['c@example.com'] })).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
});

it('every field a channel adds to its deliveries is labelled in each language the channel ships', () => {
  const registry = createPluginRegistry(builtInPlugins);
  const channels = registry.list().filter((p) => p.kind === 'channel').map((p) => registry.channel(p.id)!) as ChannelPlugin[];
  for (const plugin of channels) {
    const fields = Object.keys((plugin.deliverySchema.properties ?? {}) as Record<string, unknown>);
    for (const locale of Object.keys(plugin.manifest.translations)) {
      for (const f of fields) expect([plugin.manifest.id, locale, f, plugin.manifest.translations[locale]![`delivery.${f}.label`]]).toEqual([plugin.manifest.id, locale, f, expect.any(String)]);
    }
  }
});

it('the send errors the plugins use are codes of the catalogue', () => {
  // ChannelSendError.code is typed ProblemCode; the catalogue holds the delivery codes plugins raise.
  for (const code of ['delivery.timeout', 'delivery.unreachable', 'delivery.rejected', 'delivery.peer_error', 'delivery.auth_failed', 'outbound.refused']) {
    expect(Object.keys(problemCodes)).toContain(code);
  }
});
