/**
 * The delivery settings every channel understands (the contract's DeliverySettings): subject and
 * body templates, attachment, link, inline rows, sending when skipped, formula-safe csv. A field
 * shows only when the channel's plugin has the capability it needs.
 */
import { Checkbox, Group, NumberInput, Select, Stack, Switch, TextInput, Textarea } from '@mantine/core';
import { useT } from '../../../i18n';
import { DEFAULT_LINK_DAYS, sendsCsv, type CommonSettings, type ResultFormat } from '../utils/delivery';

const FORMATS: ResultFormat[] = ['csv', 'xlsx', 'json'];

export interface CommonDeliveryFieldsProps {
  value: CommonSettings;
  onChange: (value: CommonSettings) => void;
  capabilities: string[];
  errors: Record<string, string>;
  disabled?: boolean;
}

export function CommonDeliveryFields({ value, onChange, capabilities, errors, disabled }: CommonDeliveryFieldsProps) {
  const t = useT();
  const can = (c: string) => capabilities.includes(c);
  const set = (patch: Partial<CommonSettings>) => onChange({ ...value, ...patch });
  const formats = FORMATS.map((f) => ({ value: f, label: f.toUpperCase() }));
  return (
    <Stack gap="sm">
      <TextInput label={t('reports.delivery.subject')} description={t('reports.delivery.templateHelp')} disabled={disabled}
        placeholder="{{ report.title }}: {{ row_count }} rows" value={value.subject} error={errors['settings.subject']}
        onChange={(e) => set({ subject: e.currentTarget.value })} />
      <Textarea label={t('reports.delivery.body')} autosize minRows={3} disabled={disabled} placeholder={t('reports.delivery.bodyPlaceholder')}
        value={value.body} error={errors['settings.body']} onChange={(e) => set({ body: e.currentTarget.value })}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
      <Group grow align="flex-start">
        {can('attachments') && (
          <Select label={t('reports.delivery.attach')} disabled={disabled} clearable placeholder={t('reports.delivery.noAttachment')}
            data={formats} value={value.attach} error={errors['settings.attach']}
            onChange={(v) => set({ attach: (v as ResultFormat | null) ?? null })} />
        )}
        {can('inline_table') && (
          <NumberInput label={t('reports.delivery.inlineRows')} description={t('reports.delivery.inlineRowsHelp')} disabled={disabled}
            min={0} max={100} allowDecimal={false} value={value.inline_rows} error={errors['settings.inline_rows']}
            onChange={(v) => set({ inline_rows: typeof v === 'number' ? v : 0 })} />
        )}
      </Group>
      {can('links') && (
        <Stack gap="xs">
          <Switch label={t('reports.delivery.link')} description={t('reports.delivery.linkHelp')} disabled={disabled}
            checked={value.link !== null} error={errors['settings.link']}
            onChange={(e) => set({ link: e.currentTarget.checked ? { format: 'csv', expires_in_days: DEFAULT_LINK_DAYS } : null })} />
          {value.link && (
            <Group grow align="flex-start">
              <Select label={t('reports.delivery.linkFormat')} disabled={disabled} allowDeselect={false} data={formats}
                value={value.link.format} error={errors['settings.link.format']}
                onChange={(v) => set({ link: { ...value.link!, format: (v ?? 'csv') as ResultFormat } })} />
              <NumberInput label={t('reports.delivery.linkDays')} disabled={disabled} min={1} max={90} allowDecimal={false}
                value={value.link.expires_in_days} error={errors['settings.link.expires_in_days']}
                onChange={(v) => set({ link: { ...value.link!, expires_in_days: typeof v === 'number' ? v : DEFAULT_LINK_DAYS } })} />
            </Group>
          )}
        </Stack>
      )}
      <Checkbox label={t('reports.delivery.sendWhenSkipped')} description={t('reports.delivery.sendWhenSkippedHelp')} disabled={disabled}
        checked={value.send_when_skipped} error={errors['settings.send_when_skipped']}
        onChange={(e) => set({ send_when_skipped: e.currentTarget.checked })} />
      {sendsCsv(value) && (
        <Checkbox label={t('reports.delivery.formulaSafe')} description={t('reports.delivery.formulaSafeHelp')} disabled={disabled}
          checked={value.csv_formula_safe} error={errors['settings.csv_formula_safe']}
          onChange={(e) => set({ csv_formula_safe: e.currentTarget.checked })} />
      )}
    </Stack>
  );
}
