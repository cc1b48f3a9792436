/**
 * Query keys, one factory per contract tag: a mutation invalidates `keys.reports.all` in one line,
 * and no key is typed twice. Lists sit under `[tag, 'list', filters]`, one resource under
 * `[tag, 'one', id]`.
 */
const tag = <T extends string>(name: T) => ({
  all: [name] as const,
  lists: () => [name, 'list'] as const,
  list: (filters: object = {}) => [name, 'list', filters] as const,
  one: (id: string) => [name, 'one', id] as const,
  part: (id: string, part: string, extra: object = {}) => [name, 'one', id, part, extra] as const,
});

export const keys = {
  me: ['me'] as const,
  setup: ['setup'] as const,
  signInMethods: ['sign-in-methods'] as const,
  dashboard: ['dashboard'] as const,
  about: ['about'] as const,
  ai: ['ai'] as const,
  notifications: tag('notifications'),
  queries: tag('queries'),
  reports: tag('reports'),
  runs: tag('runs'),
  links: tag('links'),
  channels: tag('channels'),
  connections: tag('connections'),
  plugins: tag('plugins'),
  users: tag('users'),
  apiKeys: tag('api-keys'),
  sessions: tag('sessions'),
  passkeys: tag('passkeys'),
  settings: tag('settings'),
  securityEvents: tag('security-events'),
  problems: tag('system-problems'),
  config: tag('config'),
};
