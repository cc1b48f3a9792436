/** The pages between sign-in and the app (a new password, a second factor): only with a session. */
import type { ReactNode } from 'react';
import { Center } from '@mantine/core';
import { Navigate } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { useMe } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Loading } from '../../../components/Loading';

export function SignedInGate({ children }: { children: (me: Schemas['Me']) => ReactNode }) {
  const me = useMe();
  if (me.isError) return <ProblemAlert error={me.error} onRetry={() => void me.refetch()} />;
  if (me.isPending) return <Center h="100vh"><Loading /></Center>;
  if (me.data === null) return <Navigate to="/sign-in" replace />;
  return <>{children(me.data)}</>;
}
