/**
 * Whether configuration as code manages a resource, as its GET tells (`managed`): "Managed by
 * <file>" for the configuration directory, "Detached from <file>" once an admin detached it,
 * "Imported" for what an import made. With `actions`, admins get Detach (the UI and API may then
 * change it) and Attach (the directory's copy applies again; its drift shown before and the
 * fields the next sync changes after). Other pages may show it beside a resource's title.
 */
import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Stack, Text, Tooltip } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useCan } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useAttach, useDetach, useGitopsStatus } from '../hooks';
import type { ConfigKind } from '../utils/exportBody';
import { FieldDiff } from './FieldDiff';

export interface ManagedBadgeProps {
  kind: ConfigKind;
  id: string;
  name: string;
  managed: Schemas['ResourceManagement'] | null | undefined;
  /** Offer Detach / Attach (admins only). */
  actions?: boolean;
}

export function ManagedBadge({ kind, id, name, managed, actions = false }: ManagedBadgeProps) {
  const t = useT();
  const admin = useCan('admin');
  const [dialog, setDialog] = useState<'detach' | 'attach' | null>(null);
  if (!managed) return null;
  const file = managed.path ?? t('config.managed.directory');
  if (managed.by === 'import') {
    return (
      <Tooltip label={t('config.managed.importedHelp')} withArrow multiline w={280}>
        <Badge variant="light" color="gray" tabIndex={0}>{t('config.managed.imported')}</Badge>
      </Tooltip>
    );
  }
  return (
    <Group gap="xs" wrap="nowrap">
      <Badge variant="light" color={managed.detached ? 'orange' : 'violet'} style={{ textTransform: 'none' }}>
        {managed.detached ? t('config.managed.detachedFrom', { path: file }) : t('config.managed.by', { path: file })}
      </Badge>
      {actions && admin && (
        <Button size="compact-xs" variant="subtle" aria-label={t(managed.detached ? 'config.managed.attachNamed' : 'config.managed.detachNamed', { name })}
          onClick={() => setDialog(managed.detached ? 'attach' : 'detach')}>
          {managed.detached ? t('config.managed.attach') : t('config.managed.detach')}
        </Button>
      )}
      {dialog === 'detach' && <DetachDialog kind={kind} id={id} name={name} file={file} onClose={() => setDialog(null)} />}
      {dialog === 'attach' && <AttachDialog kind={kind} id={id} name={name} file={file} onClose={() => setDialog(null)} />}
    </Group>
  );
}

export interface DialogProps { kind: ConfigKind; id: string; name: string; file: string; onClose: () => void }

export function DetachDialog({ kind, id, name, file, onClose }: DialogProps) {
  const t = useT();
  const detach = useDetach();
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': t('app.close') }} title={t('config.managed.detachTitle', { name })}>
      <Stack>
        <Text size="sm">{t('config.managed.detachText', { path: file })}</Text>
        {detach.isError && <ProblemAlert error={detach.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t('app.cancel')}</Button>
          <Button loading={detach.isPending} onClick={() => detach.mutate({ kind, id }, { onSuccess: onClose })}>
            {t('config.managed.detach')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Attach, with the drift before and the changes of the next sync after; the caller keeps it open (the drift it shows may go away). */
export function AttachDialog({ kind, id, name, file, onClose }: DialogProps) {
  const t = useT();
  const attach = useAttach();
  const status = useGitopsStatus();
  const drift = status.data?.drift.find((d) => d.kind === kind && d.id === id)?.diff ?? [];
  const pending = attach.data?.pending_changes;
  return (
    <Modal opened onClose={onClose} size="xl" closeButtonProps={{ 'aria-label': t('app.close') }} title={t('config.managed.attachTitle', { name })}>
      <Stack>
        {!attach.isSuccess && (
          <>
            <Text size="sm">{t('config.managed.attachText', { path: file })}</Text>
            {status.isSuccess && (drift.length > 0
              ? <FieldDiff changes={drift} label={t('config.managed.driftOf', { name })} />
              : <Text size="sm">{t('config.managed.noDrift')}</Text>)}
          </>
        )}
        {attach.isSuccess && (
          <Alert color="green" role="status" title={t('config.managed.attached', { name })}>
            {pending === null || pending === undefined
              ? <Text size="sm">{t('config.managed.pendingUnknown')}</Text>
              : pending.length === 0
                ? <Text size="sm">{t('config.managed.pendingNone')}</Text>
                : <><Text size="sm" mb="xs">{t('config.managed.pending')}</Text><FieldDiff changes={pending} label={t('config.managed.pendingOf', { name })} /></>}
          </Alert>
        )}
        {attach.isError && <ProblemAlert error={attach.error} />}
        <Group justify="flex-end">
          {attach.isSuccess ? <Button onClick={onClose}>{t('config.managed.done')}</Button> : (
            <>
              <Button variant="default" onClick={onClose}>{t('app.cancel')}</Button>
              <Button loading={attach.isPending} onClick={() => attach.mutate({ kind, id })}>{t('config.managed.attach')}</Button>
            </>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
