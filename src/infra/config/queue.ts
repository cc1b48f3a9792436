/** Redis: queues, rate limits and cross-instance signals. */
import { required, setting } from './schema.js';
import { RedisUrlError, isClusterUrl, redisOptionsOf } from '../queue/redis-url.js';

const redisUrl = setting({
  env: 'SVC_REDIS_URL',
  description: 'Redis for queues, rate limits and cross-instance signals: redis://[:PASSWORD@]HOST:PORT[/DB] (rediss:// for TLS), under Sentinel redis+sentinel://[:PASSWORD@]SENTINEL1:PORT,SENTINEL2:PORT/MASTER-NAME[?sentinel_password=P], or a Redis Cluster redis+cluster://[:PASSWORD@]NODE1:PORT,NODE2:PORT',
  default: 'required',
  parse(v, ctx) {
    const url = required(ctx, v);
    try {
      redisOptionsOf(url);
    } catch (err) {
      if (err instanceof RedisUrlError) ctx.fail(err.message);
      throw err;
    }
    return url;
  },
});

export const queueSettings = {
  redisUrl,
  queuePrefix: setting({
    env: 'SVC_QUEUE_PREFIX',
    description: 'Redis key prefix of queues and limits; separates installations sharing one Redis (on a Redis Cluster it becomes the hash tag {PREFIX})',
    default: 'herald',
    parse(v, ctx) {
      const prefix = v ?? 'herald';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) ctx.fail('must be 1 to 64 letters, digits, - or _');
      // On a Redis Cluster every key carries the prefix as its hash tag: one slot for all of them.
      return isClusterUrl(ctx.valueOf(redisUrl)) ? `{${prefix}}` : prefix;
    },
  }),
};
