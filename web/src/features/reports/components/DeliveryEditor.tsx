/**
 * One delivery being added or changed: the channel, the common settings, the channel plugin's own
 * fields (its delivery_schema, drawn by PluginSettingsForm), a preview of the message with these
 * unsaved settings, and save (replace sends the delivery's version).
 */
import { Button, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { problemCode } from '../../../api/client';
import { PluginSettingsForm, usePluginTexts } from '../../../components/PluginSettingsForm';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { valueToSend, withDefaults, type JsonSchema } from '../../../components/schema-form';
import { useT } from '../../../i18n';
import { useChannelTypeName, usePreviewDelivery, useSaveDelivery, type Channel, type Delivery, type Plugin } from '../hooks';
import { joinSettings, splitSettings } from '../utils/delivery';
import { CommonDeliveryFields } from './CommonDeliveryFields';
import { DeliveryPreview } from './DeliveryPreview';

export interface DeliveryEditorProps {
  reportId: string;
  delivery?: Delivery | undefined;
  channels: Channel[];
  plugins: Plugin[];
  onDone: () => void;
}

const EMPTY: JsonSchema = { type: 'object', properties: {} };

export function DeliveryEditor({ reportId, delivery, channels, plugins, onDone }: DeliveryEditorProps) {
  const t = useT();
  const [channelId, setChannelId] = useState<string | null>(delivery?.channel_id ?? null);
  const initial = splitSettings(delivery?.settings as Record<string, unknown> | undefined);
  const [common, setCommon] = useState(initial.common);
  const channel = channels.find((c) => c.id === channelId);
  const plugin = plugins.find((p) => p.id === channel?.type);
  const schema = (plugin?.delivery_schema ?? EMPTY) as JsonSchema;
  const [own, setOwn] = useState<Record<string, unknown>>(() => withDefaults(schema, initial.own));
  const texts = usePluginTexts(plugin?.translations);
  const save = useSaveDelivery(reportId);
  const preview = usePreviewDelivery(reportId);
  const errors = { ...fieldErrors(preview.error), ...fieldErrors(save.error) };
  const settings = () => joinSettings(common, valueToSend(schema, own));

  const chooseChannel = (id: string | null) => {
    setChannelId(id);
    const next = plugins.find((p) => p.id === channels.find((c) => c.id === id)?.type);
    setOwn(withDefaults((next?.delivery_schema ?? EMPTY) as JsonSchema, {}));
    preview.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ id: delivery?.id, version: delivery?.version, channel_id: channelId ?? '', settings: settings() }, { onSuccess: onDone });
  };
  const typeName = useChannelTypeName();
  const heading = delivery ? t('reports.delivery.editTitle', { n: delivery.position }) : t('reports.delivery.addTitle');
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} noValidate aria-label={heading}>
      <Stack gap="sm">
        <Title order={3} size="h5">{heading}</Title>
        <Select label={t('reports.delivery.channel')} withAsterisk searchable allowDeselect={false} value={channelId} error={errors.channel_id}
          nothingFoundMessage={t('reports.delivery.noChannel')}
          data={channels.map((c) => ({ value: c.id, label: `${c.name} (${typeName(c.type)})` }))}
          onChange={chooseChannel} />
        {channels.length === 0 && <Text size="sm" c="dimmed">{t('reports.delivery.noChannels')}</Text>}
        {plugin && (
          <>
            <CommonDeliveryFields value={common} onChange={setCommon} capabilities={plugin.capabilities} errors={errors} />
            <PluginSettingsForm schema={schema} value={own} onChange={setOwn} texts={texts} textPrefix="delivery" errors={errors} errorPrefix="settings" />
          </>
        )}
        {problemCode(save.error) === 'conflict.version'
          ? <ProblemAlert error={save.error} />
          : (save.isError || preview.isError) && <ProblemAlert error={save.error ?? preview.error} />}
        {preview.data && <DeliveryPreview preview={preview.data} />}
        <Group>
          <Button type="submit" loading={save.isPending}>{t('reports.delivery.save')}</Button>
          <Button variant="light" disabled={!channelId} loading={preview.isPending}
            onClick={() => preview.mutate({ channel_id: channelId!, settings: settings() })}>{t('reports.delivery.preview')}</Button>
          <Button variant="subtle" onClick={onDone}>{t('app.cancel')}</Button>
        </Group>
      </Stack>
    </Paper>
  );
}
