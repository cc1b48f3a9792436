/**
 * /channels/:channelId: the channel's health and latest attempts, its operations (test message,
 * retry failed) for editors, and its settings, which admins change (unless the configuration
 * directory manages it) and others read. Delete (admins) asks first and lists what uses it.
 */
import { Alert, Button, Stack } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { notifications } from '@mantine/notifications';
import { useCan } from '../../../api/session';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { ChannelForm } from '../components/ChannelForm';
import { ChannelHeader } from '../components/ChannelHeader';
import { ChannelOperations } from '../components/ChannelOperations';
import { DeleteChannelButton } from '../components/DeleteChannelButton';
import { HealthSection } from '../components/HealthSection';
import { AttemptsSection } from '../components/AttemptsSection';
import { useChannel, useChannelPlugins, type Channel, type Plugin } from '../hooks';

function ExistingChannel({ channel, plugins, reload }: { channel: Channel; plugins: Plugin[]; reload: () => Promise<unknown> }) {
  const t = useT();
  const admin = useCan('admin');
  const editor = useCan('editor');
  // The configuration directory refuses changes (409 gitops.managed) until an admin detaches it.
  const locked = channel.managed?.by === 'gitops' && !channel.managed.detached;
  const canEdit = admin && !locked;
  // The version the form's edit started from: moved on by this page's own saves and, while
  // nothing is typed, by anyone's; otherwise a save answers "changed meanwhile".
  const [base, setBase] = useState(channel.version);
  const [formKey, setFormKey] = useState(0);
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty && channel.version !== base) { setBase(channel.version); setFormKey((k) => k + 1); }
  }, [channel.version, dirty, base]);
  const onDirty = useCallback((d: boolean) => setDirty(d), []);
  // After its own save the form starts again from the channel as saved (typed secrets read Configured).
  const saved = (c: Channel) => {
    setBase(c.version); setDirty(false); setFormKey((k) => k + 1);
    notifications.show({ color: 'green', message: t('channels.saved', { name: c.name }), closeButtonProps: { 'aria-label': t('app.close') } });
  };
  return (
    <>
      <ChannelHeader channel={channel} actions={(
        <>
          <Button component={Link} to="/channels" variant="default">{t('channels.all')}</Button>
          {canEdit && <DeleteChannelButton channel={channel} />}
        </>
      )} />
      <Stack>
        {locked && admin && <Alert color="violet" role="note">{t('channels.managedNote')}</Alert>}
        <HealthSection channel={channel} />
        <AttemptsSection channel={channel} />
        {editor && <ChannelOperations channel={channel} />}
        <ChannelForm key={formKey} channel={channel} version={base} plugins={plugins} readOnly={!canEdit}
          onSaved={saved} onDirty={onDirty}
          onReload={() => void reload().then(() => { setDirty(false); setFormKey((k) => k + 1); })} />
      </Stack>
    </>
  );
}

export function ChannelPage() {
  const { channelId = '' } = useParams();
  const channel = useChannel(channelId);
  const plugins = useChannelPlugins();
  return (
    <QueryState query={channel}>
      {(c) => <QueryState query={plugins}>{(p) => <ExistingChannel channel={c} plugins={p} reload={channel.refetch} />}</QueryState>}
    </QueryState>
  );
}
