/**
 * /connections/new and /connections/:connectionId: the connection's settings (ConnectionForm), a
 * test of the saved connection, the schema browser, delete. Everyone reads; admins change (and
 * not what the configuration directory manages, unless detached); editors refresh the schema.
 */
import { Alert, Button, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { ConnectionForm } from '../components/ConnectionForm';
import { DeleteConnectionButton } from '../components/DeleteConnectionButton';
import { SchemaBrowser } from '../components/SchemaBrowser';
import { TestResult } from '../components/TestResult';
import { useConnection, useConnectors, useTestConnection, type Connection, type Plugin } from '../hooks';

function ExistingConnection({ connection, connectors, reload }: { connection: Connection; connectors: Plugin[]; reload: () => Promise<unknown> }) {
  const t = useT();
  const admin = useCan('admin');
  const editor = useCan('editor');
  const locked = connection.managed?.by === 'gitops' && !connection.managed.detached;
  const canEdit = admin && !locked;
  const test = useTestConnection(connection.id);
  // The version the edit started from: moved on by this page's own save and, while nothing is
  // typed, by anyone's; otherwise a save answers "changed meanwhile".
  const [base, setBase] = useState(connection.version);
  const [formKey, setFormKey] = useState(0);
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty && connection.version !== base) { setBase(connection.version); setFormKey((k) => k + 1); }
  }, [connection.version, dirty, base]);
  const onDirty = useCallback((d: boolean) => setDirty(d), []);
  return (
    <>
      <PageHeader title={connection.name}
        badge={<ManagedBadge kind="connection" id={connection.id} name={connection.name} managed={connection.managed} actions />}
        actions={(
        <>
          {admin && <Button variant="light" loading={test.isPending} onClick={() => test.mutate()}>{t('connections.testSaved')}</Button>}
          {canEdit && <DeleteConnectionButton connection={connection} />}
          {/* The next step after a connection: a query on it (editors write queries). */}
          {editor && <Button component={Link} to={`/queries/new?connection_id=${connection.id}`} variant="default">{t('connections.newQuery')}</Button>}
          <Button component={Link} to="/connections" variant="default">{t('connections.all')}</Button>
        </>
      )} />
      <Stack>
        <TestResult result={test.data} error={test.error} />
        {locked && admin && <Alert color="violet" role="note">{t('connections.managedReadOnly')}</Alert>}
        {!admin && <Text size="sm" c="dimmed">{t('connections.readOnly')}</Text>}
        <ConnectionForm key={formKey} connection={connection} version={base} connectors={connectors} readOnly={!canEdit} onDirty={onDirty}
          onSaved={(c) => {
            // The form starts again from the connection as saved: a typed secret now reads Configured.
            setBase(c.version); setDirty(false); setFormKey((k) => k + 1); test.reset();
            notifications.show({ color: 'green', message: t('connections.saved'), closeButtonProps: { 'aria-label': t('app.close') } });
          }}
          onReload={() => void reload().then(() => { setDirty(false); setFormKey((k) => k + 1); })} />
        <SchemaBrowser connectionId={connection.id} />
      </Stack>
    </>
  );
}

export function ConnectionPage() {
  const { connectionId = '' } = useParams();
  const connection = useConnection(connectionId);
  const connectors = useConnectors();
  return (
    <QueryState query={connection}>
      {(c) => (
        <QueryState query={connectors}>
          {(plugins) => <ExistingConnection connection={c} connectors={plugins} reload={connection.refetch} />}
        </QueryState>
      )}
    </QueryState>
  );
}

export function NewConnectionPage() {
  const t = useT();
  const admin = useCan('admin');
  const navigate = useNavigate();
  const connectors = useConnectors();
  return (
    <>
      <PageHeader title={t('connections.newTitle')} />
      {admin ? (
        <QueryState query={connectors}>
          {(plugins) => (
            <ConnectionForm connectors={plugins} readOnly={false} onSaved={(c) => void navigate(`/connections/${c.id}`, { replace: true })} />
          )}
        </QueryState>
      ) : <EmptyState title={t('connections.adminsOnly')} />}
    </>
  );
}
