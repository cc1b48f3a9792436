/**
 * SVC_REDIS_URL: one server as ioredis takes it, the cluster form, or the Sentinel form (sentinels, the primary's
 * name, the servers' and the sentinels' credentials, TLS); malformed values are refused without
 * echoing them; the passwords are known to the log's redaction.
 */
import { clusterOf, isClusterUrl, redisOptionsOf, redisSecretsOf, RedisUrlError } from '../../src/infra/queue/redis-url.js';
import { loadSettings, SettingsError } from '../../src/infra/config/settings.js';

it('passes a one-server URL through as it is', () => {
  expect(redisOptionsOf('redis://:pw@10.0.0.5:6380/2')).toEqual({ url: 'redis://:pw@10.0.0.5:6380/2' });
  expect(redisOptionsOf('rediss://cache.example.com')).toEqual({ url: 'rediss://cache.example.com' });
  expect(redisSecretsOf('redis://:p%40ss@10.0.0.5:6380')).toEqual(['p@ss']);
});

it('reads the Sentinel form: sentinels with their ports (26379 by default), the primary\'s name, db, credentials and TLS', () => {
  expect(redisOptionsOf('redis+sentinel://:s3cret@10.0.0.1:26380,10.0.0.2,[::1]:26381/mymaster/3?sentinel_password=sp%21')).toEqual({
    sentinels: [{ host: '10.0.0.1', port: 26380 }, { host: '10.0.0.2', port: 26379 }, { host: '::1', port: 26381 }],
    name: 'mymaster', db: 3, password: 's3cret', sentinelPassword: 'sp!',
  });
  expect(redisOptionsOf('rediss+sentinel://app:pw@s1:26379/primary')).toMatchObject({
    sentinels: [{ host: 's1', port: 26379 }], name: 'primary', username: 'app', password: 'pw', enableTLSForSentinelMode: true, tls: {}, sentinelTLS: {},
  });
  expect(redisSecretsOf('redis+sentinel://:s3cret@s1/m?sentinel_password=sp')).toEqual(['s3cret', 'sp']);
});

it('refuses what is neither, and the setting says why without the value', () => {
  for (const bad of ['http://x', 'redis+sentinel://s1:99999/m', 'redis+sentinel://s1:26379', 'not a url']) {
    expect(() => redisOptionsOf(bad)).toThrow(RedisUrlError);
  }
  const env = { SVC_DATABASE_URL: 'postgres://u@127.0.0.1/db', SVC_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
  expect(() => loadSettings({ ...env, SVC_REDIS_URL: 'redis+sentinel://:topsecret@s1:0/m' })).toThrow(SettingsError);
  try {
    loadSettings({ ...env, SVC_REDIS_URL: 'redis+sentinel://:topsecret@s1:0/m' });
  } catch (err) {
    expect((err as Error).message).toContain('SVC_REDIS_URL');
    expect((err as Error).message).not.toContain('topsecret');
  }
  expect(loadSettings({ ...env, SVC_REDIS_URL: 'redis+sentinel://s1,s2,s3/mymaster' }).redisUrl).toBe('redis+sentinel://s1,s2,s3/mymaster');
});

it('reads the cluster form: some nodes (6379 by default) and the servers\' credentials; the queue prefix becomes a hash tag', () => {
  expect(clusterOf('redis+cluster://:pw@10.0.0.1:7000,10.0.0.2')).toEqual({
    nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 6379 }], redisOptions: { password: 'pw' },
  });
  expect(clusterOf('rediss+cluster://n1:7000')).toEqual({ nodes: [{ host: 'n1', port: 7000 }], redisOptions: { tls: {} } });
  expect(clusterOf('redis://n1:7000')).toBeUndefined();
  expect(isClusterUrl('redis+cluster://n1:7000')).toBe(true);
  expect(redisSecretsOf('redis+cluster://:pw@n1:7000')).toEqual(['pw']);
  expect(() => redisOptionsOf('redis+cluster://n1:0')).toThrow(RedisUrlError);
  const env = { SVC_DATABASE_URL: 'postgres://u@127.0.0.1/db', SVC_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') };
  expect(loadSettings({ ...env, SVC_REDIS_URL: 'redis+cluster://n1:7000', SVC_QUEUE_PREFIX: 'acme' }).queuePrefix).toBe('{acme}');
  expect(loadSettings({ ...env, SVC_REDIS_URL: 'redis://n1:6379', SVC_QUEUE_PREFIX: 'acme' }).queuePrefix).toBe('acme');
});
