/**
 * When the run delivers: always, when there are rows, by row count, by a value of the first row, or
 * when the result changed. The column is free text, with the last run's columns offered when known.
 */
import { Autocomplete, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useT } from '../../../i18n';
import { CONDITION_TYPES, COUNT_OPS, VALUE_OPS, takesValue, type ConditionForm, type ConditionOp } from '../utils/condition';

export interface ConditionEditorProps {
  value: ConditionForm;
  onChange: (value: ConditionForm) => void;
  errors: Record<string, string>;
  disabled?: boolean;
  /** Column names known from the report's last run, offered for the value condition's column. */
  columns?: string[];
}

export function ConditionEditor({ value, onChange, errors, disabled, columns = [] }: ConditionEditorProps) {
  const t = useT();
  const ops = value.type === 'row_count' ? COUNT_OPS : VALUE_OPS;
  const opData = ops.map((op) => ({ value: op, label: t(`reports.condition.op.${op}`) }));
  const set = (patch: Partial<ConditionForm>) => onChange({ ...value, ...patch });
  return (
    <Stack gap="sm">
      <Select label={t('reports.condition.type')} disabled={disabled} allowDeselect={false} error={errors.condition ?? errors['condition.type']}
        data={CONDITION_TYPES.map((c) => ({ value: c, label: t(`reports.condition.types.${c}`) }))} value={value.type}
        onChange={(v) => {
          const type = (v ?? 'always') as ConditionForm['type'];
          set({ type, op: type === 'row_count' && !COUNT_OPS.includes(value.op) ? 'gt' : value.op });
        }} />
      {value.type === 'row_count' && (
        <Group grow align="flex-start">
          <Select label={t('reports.condition.op')} disabled={disabled} allowDeselect={false} data={opData} value={value.op}
            error={errors['condition.op']} onChange={(v) => set({ op: (v ?? 'gt') as ConditionOp })} />
          <TextInput label={t('reports.condition.rows')} disabled={disabled} inputMode="numeric" value={value.value}
            error={errors['condition.value']} onChange={(e) => set({ value: e.currentTarget.value })} />
        </Group>
      )}
      {value.type === 'value' && (
        <Group grow align="flex-start">
          <Autocomplete label={t('reports.condition.column')} disabled={disabled} data={columns}
            description={columns.length > 0 ? t('reports.condition.columnKnown') : t('reports.condition.columnHelp')}
            value={value.column} error={errors['condition.column']} onChange={(column) => set({ column })} />
          <Select label={t('reports.condition.op')} disabled={disabled} allowDeselect={false} data={opData} value={value.op}
            error={errors['condition.op']} onChange={(v) => set({ op: (v ?? 'eq') as ConditionOp })} />
          {takesValue(value.op) && (
            <TextInput label={t('reports.condition.value')} disabled={disabled} value={value.value}
              error={errors['condition.value']} onChange={(e) => set({ value: e.currentTarget.value })} />
          )}
        </Group>
      )}
      <Text size="xs" c="dimmed">{t(`reports.condition.help.${value.type}`)}</Text>
    </Stack>
  );
}
