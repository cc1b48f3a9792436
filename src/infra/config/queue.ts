/** Redis: queues, rate limits and cross-instance signals. */
import { required, setting } from './schema.js';
import { RedisUrlError, redisOptionsOf } from '../queue/redis-url.js';

export const queueSettings = {
  redisUrl: setting({
    env: 'SVC_REDIS_URL',
    description: 'Redis for queues, rate limits and cross-instance signals: redis://[:PASSWORD@]HOST:PORT[/DB] (rediss:// for TLS), or under Sentinel redis+sentinel://[:PASSWORD@]SENTINEL1:PORT,SENTINEL2:PORT/MASTER-NAME[?sentinel_password=P]',
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
  }),
  queuePrefix: setting({
    env: 'SVC_QUEUE_PREFIX',
    description: 'Redis key prefix of queues and limits; separates installations sharing one Redis',
    default: 'herald',
    parse(v, ctx) {
      const prefix = v ?? 'herald';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) ctx.fail('must be 1 to 64 letters, digits, - or _');
      return prefix;
    },
  }),
};
