/** /channels/new (admins): choose the plugin, fill its settings, send a test message, create. */
import { Stack, Text } from '@mantine/core';
import { useNavigate } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { RequireRole } from '../../../components/RequireRole';
import { useT } from '../../../i18n';
import { ChannelForm } from '../components/ChannelForm';
import { useChannelPlugins } from '../hooks';

function NewChannel() {
  const t = useT();
  const navigate = useNavigate();
  const plugins = useChannelPlugins();
  return (
    <>
      <PageHeader title={t('channels.newTitle')} />
      <Stack>
        <Text size="sm" c="dimmed">{t('channels.newHelp')}</Text>
        <QueryState query={plugins}>
          {(list) => <ChannelForm plugins={list} readOnly={false} onSaved={(c) => void navigate(`/channels/${c.id}`, { replace: true })} />}
        </QueryState>
      </Stack>
    </>
  );
}

export function NewChannelPage() {
  const t = useT();
  return <RequireRole min="admin" title={t('channels.newTitle')}><NewChannel /></RequireRole>;
}
