/**
 * The gate of the signed-in app: without a session, to the setup wizard while no user exists,
 * else to sign-in with the address to come back to. A password that must change, or a second
 * factor the workspace requires, is asked for before anything else.
 */
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Center } from '@mantine/core';
import { useMe, useSetupStatus } from '../api/session';
import { ProblemAlert } from '../components/ProblemAlert';
import { Loading } from '../components/Loading';

export function RequireSession({ children }: { children: ReactNode }) {
  const me = useMe();
  const setup = useSetupStatus();
  const location = useLocation();
  if (me.isError) return <ProblemAlert error={me.error} onRetry={() => void me.refetch()} />;
  if (me.isPending || (me.data === null && setup.isPending)) {
    return <Center h="100vh"><Loading /></Center>;
  }
  if (me.data === null) {
    if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;
    const next = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to={`/sign-in${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`} replace />;
  }
  if (me.data.must_change_password && location.pathname !== '/change-password') {
    return <Navigate to={`/change-password?next=${encodeURIComponent(location.pathname)}`} replace />;
  }
  return <>{children}</>;
}
