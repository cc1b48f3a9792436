/**
 * Channels: where deliveries go. Settings are checked against the channel plugin of their type
 * (its JSON Schema, then its own rules); secret fields go only through the secret box; a channel
 * a delivery uses cannot be deleted; tests send a real message (email to the caller) without
 * recording an attempt. Every change is a security event (channels hold credentials).
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, inUse, notFound, validationFailed } from '../../core/errors.js';
import type { PageRequest } from '../../core/cursor.js';
import { newId } from '../../core/ids.js';
import { insertUnderFreeKey } from '../../core/slug.js';
import type { Secrets } from '../../core/secrets.js';
import type { SchemaCheck } from '../connections/ports.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { SecurityEventsRepo, UsersRepo } from '../identity/ports.js';
import { ChannelSendError, sendsToPeople, type ChannelMessage, type ChannelPlugin, type OutboundHttp } from '../plugins/channel.js';
import type { PluginManifest } from '../plugins/plugin.js';
import { isKeep, mergeSettings, openSecrets, secretsContext, settingsView } from './channel-settings.js';
import type { ChannelRecord } from './model.js';
import type { ChannelsRepo } from './ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

export interface ChannelPlugins {
  list(): PluginManifest[];
  channel(id: string): ChannelPlugin | undefined;
}

export interface ChannelTestResult {
  statusCode: number | null;
  peerMessageId: string | null;
  detail: string | null;
  elapsedMs: number;
  sentTo: string | null;
}

/** One test send's time limit. */
const TEST_TIMEOUT_MS = 20_000;

export function createChannelsService(deps: {
  /** Reads; changes go through the unit of work, with their audit record. */
  store: ChannelsRepo;
  uow: UnitOfWork;
  plugins: ChannelPlugins;
  secrets: Secrets;
  checkSchema: SchemaCheck;
  http: OutboundHttp;
  /** Where a caller's own email address is read (email tests go only there). */
  users: Pick<UsersRepo, 'find'>;
  clock: Clock;
  publicUrl: string;
}) {
  const { store, clock } = deps;

  const pluginOf = (type: string | undefined, field = 'type'): ChannelPlugin => {
    const plugin = type ? deps.plugins.channel(type) : undefined;
    if (!plugin) {
      const known = deps.plugins.list().filter((p) => p.kind === 'channel').map((p) => p.id).join(', ');
      throw validationFailed([{ field, code: type ? 'validation.enum' : 'validation.required', message: `must be an installed channel type: ${known}` }]);
    }
    return plugin;
  };

  const get = async (id: string): Promise<ChannelRecord> => {
    const row = await store.find(id);
    if (!row) throw notFound('channel');
    return row;
  };

  const seal = (id: string, secret: Record<string, unknown>): string | null =>
    Object.keys(secret).length === 0 ? null : deps.secrets.seal(JSON.stringify(secret), secretsContext(id));

  const audit = (events: SecurityEventsRepo, type: 'channel.created' | 'channel.updated' | 'channel.deleted', actor: Actor, c: { id: string; name: string }, details: Record<string, string | number | boolean | null> = {}) =>
    recordSecurityEvent(events, { type, actor, userId: actor.userId ?? null, target: { type: 'channel', id: c.id }, details: { name: c.name, ...details } }, clock);

  /**
   * A stored secret only goes where it was given for: moving the destination needs it again,
   * whole (a string, or an object such as the webhook's headers), or removed (null); only the
   * round-tripped {configured: true} (or leaving it out) is refused then.
   */
  const guardStoredSecrets = (plugin: ChannelPlugin, input: Record<string, unknown> | undefined, before: Record<string, unknown>, after: Record<string, unknown>, stored: Record<string, unknown>) => {
    const destinationFields = ['url', 'host', 'endpoint', 'webhook_url', 'api_base_url'];
    const moved = destinationFields.some((f) => f in after && after[f] !== before[f]);
    if (!moved) return;
    const props = (plugin.manifest.settingsSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, schema] of Object.entries(props)) {
      if (schema['x-secret'] !== true || stored[name] === undefined) continue;
      if (!isKeep(input?.[name]) || destinationFields.includes(name)) continue;
      throw validationFailed([{ field: `settings.${name}`, code: 'validation.required', message: 'send the secret again when the destination changes' }]);
    }
  };

  async function testSend(plugin: ChannelPlugin, settings: Record<string, unknown>, caller: { email: string | null }): Promise<ChannelTestResult> {
    const now = clock.now();
    const message: ChannelMessage = {
      subject: 'Herald test message',
      body: 'This is a test message from Herald. If you can read it, the channel works.',
      table: null, attachment: null, link: null,
      facts: {
        reportId: '00000000-0000-0000-0000-000000000000', reportTitle: 'Herald test', runId: '00000000-0000-0000-0000-000000000000',
        runStatus: 'success', trigger: 'test', rowCount: 0, runAt: now, runUrl: deps.publicUrl, columns: [],
      },
    };
    const toPeople = sendsToPeople(plugin);
    if (toPeople && !caller.email) throw validationFailed([{ field: 'settings', code: 'validation.invalid', message: 'a test of this channel goes to the caller, who has no address (an API key of a deleted user)' }]);
    const target = caller.email ? plugin.testTarget(caller.email) : {};
    const started = performance.now();
    try {
      const outcome = await plugin.send(settings, target, message, {
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS + 1000), timeoutMs: TEST_TIMEOUT_MS, http: deps.http, messageId: newId(), now: () => clock.now(),
      });
      return { ...outcome, elapsedMs: Math.round(performance.now() - started), sentTo: toPeople ? caller.email : null };
    } catch (err) {
      if (err instanceof ChannelSendError) throw new DomainError(err.code, err.message);
      throw err;
    }
  }

  return {
    list: (q: PageRequest) => store.list(q),
    get,
    pluginOf: (type: string) => deps.plugins.channel(type),

    async create(input: { name: string; key?: string | undefined; type: string; settings: Record<string, unknown> }, actor: Actor): Promise<ChannelRecord> {
      const plugin = pluginOf(input.type);
      const { plain, secret } = mergeSettings(plugin, input.settings, { plain: {}, secret: {} }, deps.checkSchema, deps.http, true);
      const id = newId();
      const now = clock.now();
      const secretsSealed = seal(id, secret);
      return deps.uow.run(async (tx) => {
        const row = await insertUnderFreeKey('channel', input.key, input.name, {
          keysLike: (base) => tx.channels.keysLike(base),
          insert: (key) => tx.channels.insert({
            id, key, name: input.name.trim(), type: plugin.manifest.id, settings: plain, secretsSealed,
            createdBy: actor.userId ?? null, createdAt: now, updatedAt: now,
          }),
        });
        await audit(tx.securityEvents, 'channel.created', actor, row, { type: row.type });
        return row;
      });
    },

    async update(id: string, input: { name?: string | undefined; key?: string | undefined; settings?: Record<string, unknown> | undefined; version: number }, actor: Actor): Promise<ChannelRecord> {
      const before = await get(id);
      if (before.version !== input.version) throw new DomainError('conflict.version', 'The channel changed since you read it; fetch it again and retry');
      const plugin = pluginOf(before.type);
      const stored = openSecrets(before, deps.secrets);
      const { plain, secret } = mergeSettings(plugin, input.settings, { plain: before.settings, secret: stored }, deps.checkSchema, deps.http, false);
      guardStoredSecrets(plugin, input.settings, { ...before.settings, ...stored }, { ...plain, ...secret }, stored);
      const secretsChanged = JSON.stringify(secret) !== JSON.stringify(stored);
      const changes = {
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.key !== undefined ? { key: input.key } : {}),
        settings: plain,
        ...(secretsChanged ? { secretsSealed: seal(id, secret) } : {}),
      };
      return deps.uow.run(async (tx) => {
        const after = await tx.channels.update(id, input.version, changes, clock.now());
        await audit(tx.securityEvents, 'channel.updated', actor, after, { secrets_changed: secretsChanged });
        return after;
      });
    },

    async delete(id: string, actor: Actor): Promise<void> {
      const row = await get(id);
      await deps.uow.run(async (tx) => {
        const outcome = await tx.channels.delete(id);
        if (outcome === 'not_found') throw notFound('channel');
        if (outcome === 'in_use') throw inUse('channel', await tx.channels.dependents(id));
        await audit(tx.securityEvents, 'channel.deleted', actor, row);
      });
    },

    /** Sends a test message with unsaved settings (laid over a saved channel's with channelId). */
    async testSettings(input: { type?: string | undefined; channelId?: string | undefined; settings: Record<string, unknown> }, caller: { email: string | null }): Promise<ChannelTestResult> {
      const base = input.channelId ? await get(input.channelId) : undefined;
      const plugin = pluginOf(input.type ?? base?.type);
      if (base && plugin.manifest.id !== base.type) {
        throw validationFailed([{ field: 'type', code: 'validation.invalid', message: 'must be the type of channel_id' }]);
      }
      const stored = base ? openSecrets(base, deps.secrets) : {};
      const { full, plain, secret } = mergeSettings(plugin, input.settings, { plain: base?.settings ?? {}, secret: stored }, deps.checkSchema, deps.http, !base);
      if (base) guardStoredSecrets(plugin, input.settings, { ...base.settings, ...stored }, { ...plain, ...secret }, stored);
      return testSend(plugin, full, caller);
    },

    /** The channel's settings as the API shows them (secrets as {configured: true}). */
    settingsView(channel: ChannelRecord): Record<string, unknown> {
      return settingsView(channel, deps.plugins.channel(channel.type), deps.secrets);
    },

    /** The caller's own email address (email tests go only there); null without a signed-in user. */
    async callerEmail(userId: string | undefined): Promise<string | null> {
      return userId ? (await deps.users.find(userId))?.email ?? null : null;
    },

    /** Sends a test message through a saved channel (email: to the caller). */
    async test(id: string, caller: { email: string | null }): Promise<ChannelTestResult> {
      const channel = await get(id);
      const plugin = pluginOf(channel.type);
      return testSend(plugin, { ...channel.settings, ...openSecrets(channel, deps.secrets) }, caller);
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
