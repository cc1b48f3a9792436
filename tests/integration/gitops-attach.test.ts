/**
 * Attach answers what the next reconcile changes even when a reconcile runs at once after the
 * attach commits (the attach itself wakes one; on a busy machine it can come before the answer
 * is made). The race is made certain here: the configuration directory's reads (the attach's plan
 * and the reconciler's) run a reconcile first, on the first read after the test asks for it. On
 * the store, with the API process's own services (no scheduler role: the test reconciles itself).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createGitopsService, createReconciler, type GitopsDirectory } from '../../src/domain/config/gitops.js';
import { gitopsDirectory } from '../../src/main/config-sources.js';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';

let h: Herald;
let admin: SessionClient;
let dir: string;

const channel = (name: string) => `apiVersion: herald/v1
kind: Channel
metadata:
  name: race-hook
spec:
  name: ${name}
  type: webhook
  settings:
    url: https://hooks.example.com/race
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'herald-gitops-attach-'));
  await writeFile(path.join(dir, 'channels.yaml'), channel('Race hook'));
  h = await startHerald({ env: { SVC_GITOPS_DIR: dir } });
  admin = await setupAdmin(h);
});
afterAll(async () => {
  await h?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('attach answers the drift the next reconcile applies, though a reconcile runs right after its commit', async () => {
  const c = h.process.container;
  const { config } = h.process.services;
  const real: GitopsDirectory = gitopsDirectory(dir)!;
  const log = c.logger.child({ component: 'gitops' });
  const reconciler = createReconciler({ directory: real, config, store: c.repos.config, clock: c.clock, log });
  let reconcileOnRead = false;
  const racing: GitopsDirectory = {
    ...real,
    read: async () => {
      if (reconcileOnRead) { reconcileOnRead = false; await reconciler.tick(c.clock.now()); }
      return real.read();
    },
  };
  const gitops = createGitopsService({ store: c.repos.config, uow: c.uow, config, directory: racing, clock: c.clock });

  expect(await reconciler.tick(c.clock.now())).toBe('applied');
  const made = (await admin.get('/api/v1/channels').expect(200)).body.items.find((x: { key: string }) => x.key === 'race-hook');
  expect(made).toMatchObject({ name: 'Race hook', managed: { by: 'gitops' } });
  const actor = { type: 'user' as const, userId: admin.userId };
  await gitops.detach('channel', made.id, actor);
  const current = (await admin.get(`/api/v1/channels/${made.id}`).expect(200)).body;
  await admin.patch(`/api/v1/channels/${made.id}`).send({ version: current.version, name: 'Changed while detached' }).expect(200);

  reconcileOnRead = true; // a reconcile comes with the next read of the directory
  const attached = await gitops.attach('channel', made.id, actor);
  expect(reconcileOnRead).toBe(false); // it ran
  expect(attached.managed).toBe(true);
  expect(attached.pendingChanges).toEqual([{ path: 'spec.name', before: 'Changed while detached', after: 'Race hook' }]);
  // And the next reconcile applies exactly that.
  await reconciler.tick(c.clock.now());
  expect((await admin.get(`/api/v1/channels/${made.id}`).expect(200)).body.name).toBe('Race hook');
});
