/** Redis: queues, rate limits and cross-instance signals. */
import { requiredUrl, setting } from './schema.js';

export const queueSettings = {
  redisUrl: requiredUrl('SVC_REDIS_URL', ['redis:', 'rediss:'], 'Redis for queues, rate limits and cross-instance signals', 'required'),
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
