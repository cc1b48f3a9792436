/**
 * The AI assistant (GET/PUT /settings/ai): the provider (an installed ai plugin, or off), model,
 * address and API key, limits, whether sample values may leave; with a test of the settings as
 * typed, before they are saved. Field help comes from the plugin's own translations.
 */
import type { FormEvent } from 'react';
import { Button, Group, NumberInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { fieldErrors } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useI18n } from '../../../i18n';
import { useAiPlugins, useAiSettings, useReplaceAiSettings, useSettingsForm } from '../hooks';
import { textOrNull } from '../utils/format';
import { isConfigured, secretToSend, type SecretDraft } from '../utils/secret';
import { AiTest } from './AiTest';
import { LastChanged, SaveFeedback, SectionTitle } from './SaveFeedback';
import { SecretField } from './SecretField';

type Ai = Schemas['AiSettings'];
type Plugin = Schemas['Plugin'];

const draftOf = (d: Ai) => ({
  provider: d.provider,
  model: d.model ?? '',
  base_url: d.base_url ?? '',
  api_key: undefined as SecretDraft,
  timeout_seconds: d.timeout_seconds,
  max_tokens: d.max_tokens,
  send_sample_values: d.send_sample_values,
});
export type AiDraft = ReturnType<typeof draftOf>;

export function AiSection() {
  const query = useAiSettings();
  const plugins = useAiPlugins();
  return (
    <QueryState query={query}>
      {(data) => <AiForm data={data} plugins={plugins.data ?? []} reload={async () => (await query.refetch()).data} />}
    </QueryState>
  );
}

function AiForm({ data, plugins, reload }: { data: Ai; plugins: Plugin[]; reload: () => Promise<Ai | undefined> }) {
  const { t, language } = useI18n();
  const form = useSettingsForm(data, draftOf);
  const save = useReplaceAiSettings();
  const errors = fieldErrors(save.error);
  const d = form.draft;
  const change = (patch: Partial<AiDraft>) => { save.reset(); form.set(patch); };
  const stored = isConfigured(form.base.api_key);
  const plugin = plugins.find((p) => p.id === d.provider);
  /** The plugin's text for a key in the user's language, else English. */
  const text = (key: string): string | undefined => plugin?.translations[language]?.[key] ?? plugin?.translations.en?.[key];
  const providers = [
    { value: 'off', label: t('settings.ai.off') },
    ...plugins.map((p) => ({ value: p.id, label: p.translations[language]?.name ?? p.translations.en?.name ?? p.id })),
  ];
  const off = d.provider === 'off';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const key = secretToSend(stored, d.api_key);
    save.mutate({
      provider: d.provider,
      model: textOrNull(d.model),
      base_url: textOrNull(d.base_url),
      ...(key === undefined ? {} : { api_key: key }),
      timeout_seconds: d.timeout_seconds,
      max_tokens: d.max_tokens,
      send_sample_values: d.send_sample_values,
      version: form.base.version,
    }, { onSuccess: (saved) => form.reset(saved) });
  };
  const onReload = async () => {
    const fresh = await reload();
    save.reset();
    if (fresh) form.reset(fresh);
  };
  const num = (v: string | number, fallback: number) => (typeof v === 'number' ? v : Number.parseInt(v, 10) || fallback);

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={720} gap="md">
        <SectionTitle title={t('settings.ai.title')} intro={t('settings.ai.intro')} />
        <Select label={t('settings.ai.provider')} data={providers} value={d.provider} allowDeselect={false} error={errors.provider}
          onChange={(v) => change({ provider: v ?? 'off' })} />
        {!off && (
          <>
            <TextInput label={t('settings.ai.model')} description={text('settings.model.help')} value={d.model} error={errors.model}
              onChange={(e) => change({ model: e.currentTarget.value })} />
            <TextInput label={t('settings.ai.baseUrl')} description={text('settings.base_url.help')} value={d.base_url}
              error={errors.base_url} onChange={(e) => change({ base_url: e.currentTarget.value })} />
            <SecretField label={t('settings.ai.apiKey')} description={text('settings.api_key.help')} stored={stored} value={d.api_key}
              error={errors.api_key} onChange={(v) => change({ api_key: v })} />
            <Group grow>
              <NumberInput label={t('settings.ai.timeout')} min={5} max={300} value={d.timeout_seconds} error={errors.timeout_seconds}
                onChange={(v) => change({ timeout_seconds: num(v, 60) })} />
              <NumberInput label={t('settings.ai.maxTokens')} min={256} max={32000} step={256} value={d.max_tokens}
                error={errors.max_tokens} onChange={(v) => change({ max_tokens: num(v, 2000) })} />
            </Group>
            <Switch label={t('settings.ai.sendSampleValues')} description={t('settings.ai.sendSampleValuesHelp')}
              checked={d.send_sample_values} onChange={(e) => change({ send_sample_values: e.currentTarget.checked })} />
            <AiTest draft={d} stored={stored} />
          </>
        )}
        <SaveFeedback error={save.error} saved={save.isSuccess} onReload={() => void onReload()} />
        <Group justify="space-between">
          <Button type="submit" loading={save.isPending}>{t('app.save')}</Button>
          <LastChanged at={form.base.updated_at} />
        </Group>
      </Stack>
    </form>
  );
}
