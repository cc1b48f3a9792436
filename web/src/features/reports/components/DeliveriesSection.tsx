/**
 * A saved report's deliveries in order: each with its channel and what it sends, a preview of
 * its message, and for editors edit, move up or down, remove; add one; test delivery.
 */
import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { QueryState } from '../../../components/QueryState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import {
  useChannels, useChannelTypeName, useDeleteDelivery, useDeliveries, usePlugins, usePreviewDelivery, useSaveDelivery,
  type Channel, type Delivery, type Plugin,
} from '../hooks';
import { ConfirmButton } from './ConfirmButton';
import { DeliveryEditor } from './DeliveryEditor';
import { DeliveryPreview } from './DeliveryPreview';
import { Section } from './ReportForm';
import { TestDelivery } from './ReportActions';

interface ItemProps {
  reportId: string;
  delivery: Delivery;
  count: number;
  channel: Channel | undefined;
  readOnly: boolean;
  onEdit: () => void;
}

function DeliveryItem({ reportId, delivery, count, channel, readOnly, onEdit }: ItemProps) {
  const t = useT();
  const typeName = useChannelTypeName();
  const move = useSaveDelivery(reportId);
  const remove = useDeleteDelivery(reportId);
  const preview = usePreviewDelivery(reportId);
  const s = delivery.settings;
  const name = channel?.name ?? t('reports.delivery.unknownChannel');
  const moveTo = (position: number) => move.mutate({ id: delivery.id, version: delivery.version, channel_id: delivery.channel_id, position, settings: s });
  return (
    <Paper withBorder p="sm" component="li" aria-label={t('reports.delivery.item', { n: delivery.position, name })}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Text fw={600}>{delivery.position}. {name}</Text>
            <Badge variant="outline" color="gray">{typeName(delivery.channel_type)}</Badge>
            {s.attach && <Badge variant="light">{t('reports.delivery.attachBadge', { format: s.attach.toUpperCase() })}</Badge>}
            {s.link && <Badge variant="light">{t('reports.delivery.linkBadge', { format: s.link.format.toUpperCase() })}</Badge>}
            {s.inline_rows > 0 && <Badge variant="light">{t('reports.delivery.rowsBadge', { n: s.inline_rows })}</Badge>}
            {s.send_when_skipped && <Badge variant="light" color="gray">{t('reports.delivery.skippedBadge')}</Badge>}
          </Group>
          <Group gap={4}>
            {!readOnly && (
              <Button size="compact-sm" variant="subtle" loading={preview.isPending}
                aria-label={preview.data ? t('reports.delivery.hidePreviewNamed', { n: delivery.position }) : t('reports.delivery.previewNamed', { n: delivery.position })}
                onClick={() => (preview.data ? preview.reset() : preview.mutate({ delivery_id: delivery.id }))}>
                {preview.data ? t('reports.delivery.hidePreview') : t('reports.delivery.previewShort')}
              </Button>
            )}
            {!readOnly && (
              <>
                <Button size="compact-sm" variant="subtle" onClick={onEdit} aria-label={t('reports.delivery.editNamed', { n: delivery.position })}>{t('app.edit')}</Button>
                <Button size="compact-sm" variant="subtle" disabled={delivery.position === 1} loading={move.isPending}
                  aria-label={t('reports.delivery.moveUp', { n: delivery.position })} onClick={() => moveTo(delivery.position - 1)}>↑</Button>
                <Button size="compact-sm" variant="subtle" disabled={delivery.position === count} loading={move.isPending}
                  aria-label={t('reports.delivery.moveDown', { n: delivery.position })} onClick={() => moveTo(delivery.position + 1)}>↓</Button>
                <ConfirmButton size="compact-sm" variant="subtle" color="red" aria-label={t('reports.delivery.removeNamed', { n: delivery.position })}
                  title={t('reports.delivery.removeTitle', { name })} text={t('reports.delivery.removeText')} confirmLabel={t('reports.delivery.remove')}
                  pending={remove.isPending} error={remove.error} onConfirm={(close) => remove.mutate(delivery.id, { onSuccess: close })}>
                  {t('reports.delivery.remove')}
                </ConfirmButton>
              </>
            )}
          </Group>
        </Group>
        <Text size="sm" c="dimmed">{s.subject}</Text>
        {(move.isError || preview.isError) && <ProblemAlert error={move.error ?? preview.error} />}
        {preview.data && <DeliveryPreview preview={preview.data} />}
      </Stack>
    </Paper>
  );
}

function DeliveryList({ reportId, deliveries, channels, plugins, readOnly, canTest }: { reportId: string; deliveries: Delivery[]; channels: Channel[]; plugins: Plugin[]; readOnly: boolean; canTest: boolean }) {
  const t = useT();
  // 'new', a delivery's id, or null: one editor at a time.
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <Stack gap="sm">
      {deliveries.length === 0 && <Text size="sm" c="dimmed">{t('reports.delivery.none')}</Text>}
      {deliveries.length > 0 && (
        <Stack component="ol" gap="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {deliveries.map((d) => (editing === d.id
            ? <li key={d.id}><DeliveryEditor reportId={reportId} delivery={d} channels={channels} plugins={plugins} onDone={() => setEditing(null)} /></li>
            : <DeliveryItem key={d.id} reportId={reportId} delivery={d} count={deliveries.length} channel={channels.find((c) => c.id === d.channel_id)}
                readOnly={readOnly} onEdit={() => setEditing(d.id)} />))}
        </Stack>
      )}
      {editing === 'new' && <DeliveryEditor reportId={reportId} channels={channels} plugins={plugins} onDone={() => setEditing(null)} />}
      {!readOnly && editing === null && (
        <Button variant="light" w="fit-content" onClick={() => setEditing('new')}>{t('reports.delivery.add')}</Button>
      )}
      {canTest && deliveries.length > 0 && <TestDelivery reportId={reportId} />}
    </Stack>
  );
}

/** `canTest`: test delivery offered even when the deliveries are read-only (a report the configuration directory manages). */
export function DeliveriesSection({ reportId, readOnly, canTest = !readOnly }: { reportId: string; readOnly: boolean; canTest?: boolean }) {
  const t = useT();
  const deliveries = useDeliveries(reportId);
  const channels = useChannels();
  const plugins = usePlugins();
  return (
    <Section title={t('reports.section.deliveries')}>
      <QueryState query={deliveries}>
        {(items) => (
          <QueryState query={channels}>
            {(chs) => (
              <QueryState query={plugins}>
                {(pls) => <DeliveryList reportId={reportId} deliveries={items} channels={chs} plugins={pls} readOnly={readOnly} canTest={canTest} />}
              </QueryState>
            )}
          </QueryState>
        )}
      </QueryState>
    </Section>
  );
}
