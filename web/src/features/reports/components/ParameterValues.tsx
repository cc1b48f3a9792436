/** Values for the query's parameters; an empty one takes the parameter's default. */
import { Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useT } from '../../../i18n';
import type { QueryParameter } from '../utils/parameters';

export interface ParameterValuesProps {
  parameters: QueryParameter[];
  value: Record<string, string>;
  onChange: (value: Record<string, string>) => void;
  errors: Record<string, string>;
  disabled?: boolean;
}

function ParameterInput({ p, value, onChange, error, disabled }: { p: QueryParameter; value: string; onChange: (v: string) => void; error?: string | undefined; disabled?: boolean | undefined }) {
  const t = useT();
  const hasDefault = p.default !== undefined && p.default !== null;
  const description = [p.description, hasDefault ? t('reports.parameters.default', { value: String(p.default) }) : undefined].filter(Boolean).join(' · ') || undefined;
  const common = { label: p.name, description, error, disabled, withAsterisk: p.required && !hasDefault };
  if (p.type === 'boolean') {
    return (
      <Select {...common} clearable placeholder={hasDefault ? String(p.default) : undefined}
        data={[{ value: 'true', label: t('reports.parameters.true') }, { value: 'false', label: t('reports.parameters.false') }]}
        value={value === '' ? null : value} onChange={(v) => onChange(v ?? '')} />
    );
  }
  const type = p.type === 'date' ? 'date' : p.type === 'timestamp' ? 'text' : 'text';
  const placeholder = p.type === 'timestamp' ? '2026-01-31T08:00:00Z' : hasDefault ? String(p.default) : undefined;
  return (
    <TextInput {...common} type={type} inputMode={p.type === 'number' || p.type === 'integer' ? 'decimal' : undefined}
      placeholder={placeholder} value={value} onChange={(e) => onChange(e.currentTarget.value)} />
  );
}

export function ParameterValues({ parameters, value, onChange, errors, disabled }: ParameterValuesProps) {
  const t = useT();
  if (parameters.length === 0) return <Text size="sm" c="dimmed">{t('reports.parameters.none')}</Text>;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      {parameters.map((p) => (
        <ParameterInput key={p.name} p={p} value={value[p.name] ?? ''} disabled={disabled} error={errors[`parameters.${p.name}`]}
          onChange={(v) => onChange({ ...value, [p.name]: v })} />
      ))}
    </SimpleGrid>
  );
}
