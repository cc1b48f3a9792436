/**
 * A channel's fields: its name, its plugin (chosen once, for a new channel) and the plugin's
 * settings drawn by PluginSettingsForm from the settings_schema with the plugin's translations
 * (secrets as Configured · Replace · Remove). "Send test message" tries the settings as they stand
 * before saving (POST /channels/test; over a saved channel's own settings with channel_id). Starts
 * from the channel as loaded and sends `version` back; problems land on their fields
 * (`settings.url`), 409 conflict.version offers a reload.
 */
import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { problemCode } from '../../../api/client';
import { useCurrentUser } from '../../../api/session';
import { PluginSettingsForm, usePluginTexts } from '../../../components/PluginSettingsForm';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { withDefaults, type JsonSchema } from '../../../components/schema-form';
import { useI18n } from '../../../i18n';
import { useCreateChannel, useTestChannelSettings, useUpdateChannel, type Channel, type Plugin } from '../hooks';
import { createBody, initialForm, updateBody, type ChannelFormState } from '../utils/channelForm';
import { TestOutcome } from './TestOutcome';

export interface ChannelFormProps {
  /** The channel to edit; a new one without. */
  channel?: Channel | undefined;
  /** The version the edit started from (the caller moves it on after its own changes). */
  version?: number | undefined;
  plugins: Plugin[];
  readOnly: boolean;
  onSaved: (channel: Channel) => void;
  onDirty?: (dirty: boolean) => void;
  /** Loads the channel again after 409 (the caller starts the form over). */
  onReload?: () => void;
}

const schemaOf = (plugins: Plugin[], type: string | null | undefined): JsonSchema | undefined =>
  plugins.find((p) => p.id === type)?.settings_schema as JsonSchema | undefined;

export function ChannelForm({ channel, version, plugins, readOnly, onSaved, onDirty, onReload }: ChannelFormProps) {
  const { t, language } = useI18n();
  const [form, setForm] = useState<ChannelFormState>(() => initialForm(schemaOf(plugins, channel?.type), channel));
  const [dirty, setDirty] = useState(false);
  const plugin = plugins.find((p) => p.id === form.type);
  const me = useCurrentUser();
  const schema = (plugin?.settings_schema ?? { type: 'object', properties: {} }) as JsonSchema;
  const texts = usePluginTexts(plugin?.translations);
  const create = useCreateChannel();
  const update = useUpdateChannel(channel?.id ?? '');
  const save = channel ? update : create;
  const test = useTestChannelSettings();
  const errors = { ...fieldErrors(test.error), ...fieldErrors(save.error) };
  const conflict = problemCode(save.error) === 'conflict.version';

  useEffect(() => { onDirty?.(dirty); }, [dirty, onDirty]);
  const set = (patch: Partial<ChannelFormState>) => { setForm((f) => ({ ...f, ...patch })); setDirty(true); if (!test.isPending) test.reset(); };
  const chooseType = (type: string | null) => set({ type, settings: withDefaults(schemaOf(plugins, type) ?? {}, {}) });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const options = { onSuccess: (saved: Channel) => { setDirty(false); onSaved(saved); } };
    if (channel) update.mutate(updateBody(schema, form, version ?? channel.version), options);
    else create.mutate(createBody(schema, form), options);
  };
  const sendTest = () => {
    const { settings, type } = createBody(schema, form);
    test.mutate(channel ? { channel_id: channel.id, settings } : { type, settings });
  };

  const pluginName = (p: Plugin) => p.translations[language]?.name ?? p.translations.en?.name ?? p.id;
  const heading = t('channels.section.settings');
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} noValidate aria-label={heading}>
      <Title order={2} size="h4" mb="sm">{heading}</Title>
      <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack gap="sm">
          <TextInput label={t('channels.field.name')} withAsterisk value={form.name} error={errors.name}
            onChange={(e) => set({ name: e.currentTarget.value })} />
          {channel ? (
            <Text size="sm"><Text span c="dimmed">{t('channels.field.type')}:</Text> {plugin ? pluginName(plugin) : channel.type}</Text>
          ) : (
            <Select label={t('channels.field.type')} withAsterisk allowDeselect={false} value={form.type} error={errors.type}
              data={plugins.map((p) => ({ value: p.id, label: pluginName(p) }))} onChange={chooseType} />
          )}
          {plugin && (
            <PluginSettingsForm key={plugin.id} schema={schema} value={form.settings} onChange={(s) => set({ settings: s })}
              texts={texts} errors={errors} errorPrefix="settings" disabled={readOnly} />
          )}
          {!plugin && channel && <Text size="sm" c="dimmed">{t('channels.pluginMissing', { type: channel.type })}</Text>}
          {conflict ? (
            <Alert color="yellow" role="alert" title={t('app.changedMeanwhile')}>
              {onReload && <Button size="xs" variant="light" onClick={onReload}>{t('app.reload')}</Button>}
            </Alert>
          ) : save.isError && <ProblemAlert error={save.error} />}
          <TestOutcome result={test.data} error={test.error} />
          {!readOnly && (
            <Group>
              <Button type="submit" loading={save.isPending}>{channel ? t('channels.save') : t('channels.create')}</Button>
              {/* A saved channel's own test is in its operations; here, only what is typed and not saved yet. */}
              {(!channel || dirty) && (
                <Button variant="light" disabled={!plugin} loading={test.isPending} onClick={sendTest}>
                  {channel ? t('channels.test.sendUnsaved') : t('channels.test.send')}
                </Button>
              )}
              {channel && dirty && <Text size="sm" c="dimmed" role="status">{t('channels.unsaved')}</Text>}
            </Group>
          )}
          {/* Where an email test goes is not in the form: the API sends it to the caller. */}
          {!readOnly && (!channel || dirty) && form.type === 'email' && (
            <Text size="xs" c="dimmed">{t('channels.test.toYou', { address: me.email })}</Text>
          )}
        </Stack>
      </fieldset>
    </Paper>
  );
}
