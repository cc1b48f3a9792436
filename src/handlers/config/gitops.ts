/**
 * GitOps over HTTP: detach, attach and the status of the configuration directory, and the guard
 * that refuses (409 gitops.managed) a change through the API of a resource the directory manages.
 * The guard is here, in front of the services, so that the reconciler (which changes resources
 * through the same services) is never refused.
 */
import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import type { OperationId } from '../../generated/operations.js';
import type { components } from '../../generated/openapi.js';
import type { ConfigKind } from '../../domain/config/model.js';
import type { ManagedResourceView } from '../../domain/config/gitops.js';
import { actorOf } from '../identity-views.js';

type Schemas = components['schemas'];
type Deps = Pick<ApiServices, 'gitops'>;

const managedView = (m: ManagedResourceView): Schemas['ManagedResource'] => ({
  kind: m.kind, id: m.id, name: m.name, managed: m.managed, path: m.path,
  detached_at: m.detachedAt ? m.detachedAt.toISOString() : null, detached_by: m.detachedBy,
  pending_changes: m.pendingChanges,
});

export const detachManagedResource = (d: Deps): Handler<'detachManagedResource'> => async (req) =>
  ({ status: 200, body: managedView(await d.gitops.detach(req.body.kind, req.body.id, actorOf(req.ctx))) });

export const attachManagedResource = (d: Deps): Handler<'attachManagedResource'> => async (req) =>
  ({ status: 200, body: managedView(await d.gitops.attach(req.body.kind, req.body.id, actorOf(req.ctx))) });

export const getGitopsStatus = (d: Deps): Handler<'getGitopsStatus'> => async () => {
  const s = await d.gitops.status();
  return {
    status: 200,
    body: {
      enabled: s.enabled, directory: s.directory, last_reconcile_at: s.lastReconcileAt ? s.lastReconcileAt.toISOString() : null,
      result: s.result, errors: s.errors, managed: s.managed, detached: s.detached, drift: s.drift,
    },
  };
};

/**
 * A handler that changes a resource, refused with 409 gitops.managed while the configuration
 * directory manages that resource (and it is not detached). `idOf` reads the resource's id from
 * the request (the report of a delivery's change).
 */
export function guarded<K extends OperationId>(
  d: Deps, kind: ConfigKind, idOf: (params: Parameters<Handler<K>>[0]['params']) => string, handler: Handler<K>,
): Handler<K> {
  return async (req) => {
    await d.gitops.assertNotManaged(kind, idOf(req.params));
    return handler(req);
  };
}
