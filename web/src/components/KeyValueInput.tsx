/**
 * Name/value rows for an object of strings (a plugin field such as webhook headers): each row a
 * name and a value input, with Add and Remove. The rows are this component's; onChange gets the
 * object (a blank name is dropped when the form sends it).
 */
import { ActionIcon, Button, Group, Input, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useT } from '../i18n';

export interface KeyValueInputProps {
  label: string;
  description?: string | undefined;
  error?: string | undefined;
  required?: boolean | undefined;
  disabled?: boolean | undefined;
  value: Record<string, string>;
  onChange: (value: Record<string, string>) => void;
  /** Values are secrets: typed in password inputs. */
  secret?: boolean;
}

export function KeyValueInput({ label, description, error, required, disabled, value, onChange, secret }: KeyValueInputProps) {
  const t = useT();
  const [rows, setRows] = useState<Array<[string, string]>>(() => {
    const entries = Object.entries(value);
    return entries.length > 0 ? entries : [['', '']];
  });
  const update = (next: Array<[string, string]>) => {
    setRows(next);
    onChange(Object.fromEntries(next));
  };
  const ValueInput = secret ? PasswordInput : TextInput;
  return (
    <Input.Wrapper label={label} description={description} error={error} withAsterisk={required}>
      <Stack gap={6} mt={4}>
        {rows.map(([name, val], i) => (
          <Group key={i} gap="xs" wrap="nowrap" align="flex-end">
            <TextInput aria-label={t('keyValue.name', { label, n: i + 1 })} placeholder={t('keyValue.namePlaceholder')} disabled={disabled}
              value={name} onChange={(e) => update(rows.map((r, j) => (j === i ? [e.currentTarget.value, r[1]] : r)))} style={{ flex: 1 }} />
            <ValueInput aria-label={t('keyValue.value', { label, n: i + 1 })} placeholder={t('keyValue.valuePlaceholder')} disabled={disabled}
              autoComplete="off" value={val} onChange={(e) => update(rows.map((r, j) => (j === i ? [r[0], e.currentTarget.value] : r)))} style={{ flex: 2 }} />
            {!disabled && (
              <ActionIcon variant="subtle" color="gray" aria-label={t('keyValue.remove', { label, n: i + 1 })}
                onClick={() => update(rows.filter((_, j) => j !== i))}>×</ActionIcon>
            )}
          </Group>
        ))}
        {!disabled && (
          <Button size="compact-sm" variant="light" w="fit-content" onClick={() => update([...rows, ['', '']])}>
            {t('keyValue.add')}
          </Button>
        )}
      </Stack>
    </Input.Wrapper>
  );
}
