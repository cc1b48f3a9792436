/** After a sign-in: the user is fetched again, and the app goes where the person was headed. */
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { keys } from '../../api/keys';

/** Only paths inside this app: `next` never leads to another site. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function useSignedIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return async () => {
    client.removeQueries();
    await client.fetchQuery({ queryKey: keys.me, queryFn: async () => (await import('../../api/client')).api.call('getMe') });
    await navigate(safeNext(params.get('next')), { replace: true });
  };
}
