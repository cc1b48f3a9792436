import { Anchor } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api } from '../../../api/client';
import { keys } from '../../../api/keys';
import { useT } from '../../../i18n';

/** "Sign out" on the pages before the app (a person who does not want to go on now). */
export function SignOutLink() {
  const t = useT();
  const client = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => api.call('logout'),
    onSettled: () => {
      client.clear();
      client.setQueryData(keys.me, null);
      void navigate('/sign-in?signed_out=1');
    },
  });
  return <Anchor component="button" type="button" size="sm" onClick={() => signOut.mutate()}>{t('nav.signOut')}</Anchor>;
}
