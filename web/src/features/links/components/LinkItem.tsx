/**
 * One shared link as a card: report and format, status, expiry, downloads, revoke (editors) with
 * confirmation, and its download log on demand.
 */
import { useState } from 'react';
import { Anchor, Button, Card, Collapse, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { useCan } from '../../../api/session';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time, formatTime } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { useRevokeLink } from '../hooks';
import { LinkDownloads } from './LinkDownloads';

export function LinkItem({ link, showRun = false }: { link: Schemas['Link']; showRun?: boolean }) {
  const { t, locale, timeZone } = useI18n();
  const canRevoke = useCan('editor');
  const revoke = useRevokeLink();
  const [confirming, setConfirming] = useState(false);
  const [open, setOpen] = useState(false);
  const name = t('links.name', { title: link.report_title, format: link.format.toUpperCase(), created: formatTime(link.created_at, locale, timeZone) });
  return (
    <Card withBorder padding="sm" component="article" aria-label={name}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Stack gap={2}>
          <Group gap="xs">
            <Text fw={600}>{link.report_title}</Text>
            <Text size="sm" c="dimmed">{link.format.toUpperCase()}</Text>
            <StatusBadge status={link.status} />
          </Group>
          <Text size="sm">
            {t('links.createdAt')} <Time value={link.created_at} /> · {link.status === 'revoked' && link.revoked_at
              ? <>{t('links.revokedAt')} <Time value={link.revoked_at} /></>
              : <>{t(link.status === 'expired' ? 'links.expiredAt' : 'links.expiresAt')} <Time value={link.expires_at} /></>}
          </Text>
          <Text size="sm">
            {t('links.downloads', { count: link.download_count })}
            {link.last_downloaded_at && <> · {t('links.lastDownload')} <Time value={link.last_downloaded_at} /></>}
            {link.created_by === null && ` · ${t('links.byDelivery')}`}
          </Text>
          {showRun && <Anchor component={Link} to={`/runs/${link.run_id}`} size="sm">{t('links.openRun')}</Anchor>}
        </Stack>
        <Group gap="xs">
          <Button size="xs" variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
            {t(open ? 'links.hideLog' : 'links.showLog')}
          </Button>
          {canRevoke && link.status === 'active' && (
            <Button size="xs" variant="light" color="red" onClick={() => { revoke.reset(); setConfirming(true); }}>{t('links.revoke')}</Button>
          )}
        </Group>
      </Group>
      <ConfirmDialog opened={confirming} title={t('links.revokeTitle')} confirmLabel={t('links.revokeYes')}
        loading={revoke.isPending} error={revoke.error}
        onConfirm={() => revoke.mutate(link.id, { onSuccess: () => setConfirming(false) })} onClose={() => setConfirming(false)}>
        {t('links.revokeConfirm')}
      </ConfirmDialog>
      <Collapse in={open}>{open && <Stack mt="sm"><LinkDownloads linkId={link.id} /></Stack>}</Collapse>
    </Card>
  );
}
