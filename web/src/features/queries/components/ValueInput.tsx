/** One parameter value as text, with the input its type suits (a date picker for dates, true/false for booleans). */
import { Select, TextInput } from '@mantine/core';
import { useT } from '../../../i18n';
import type { ParameterType } from '../utils/draft';

interface Props {
  label: string;
  type: ParameterType;
  value: string;
  onChange: (value: string) => void;
  readOnly?: boolean;
  error?: string | undefined;
  description?: string;
  required?: boolean;
}

export function ValueInput({ label, type, value, onChange, readOnly, error, description, required }: Props) {
  const t = useT();
  if (type === 'boolean') {
    return (
      <Select label={label} description={description} readOnly={readOnly} error={error} required={required} clearable={!required && !readOnly}
        data={[{ value: 'true', label: t('queries.true') }, { value: 'false', label: t('queries.false') }]}
        value={value === '' ? null : value} onChange={(v) => onChange(v ?? '')} placeholder={t('queries.noValue')} />
    );
  }
  const numeric = type === 'number' || type === 'integer';
  return (
    <TextInput label={label} description={description} readOnly={readOnly} error={error} required={required} value={value}
      type={type === 'date' ? 'date' : 'text'} inputMode={numeric ? 'decimal' : undefined}
      placeholder={type === 'timestamp' ? '2026-01-31T08:00:00Z' : numeric ? '0' : undefined}
      onChange={(e) => onChange(e.currentTarget.value)} />
  );
}
