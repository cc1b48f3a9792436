/**
 * A secret setting (a plugin field with x-secret): never shown. A stored one reads
 * "Configured" with Replace and Remove; Replace opens an empty input (a text, or name/value rows
 * for an object of secrets such as webhook headers), Remove marks it null until saved. The value
 * handed to onChange is what the form sends: {configured: true} (keep), a string or an object
 * (replace), null (remove).
 */
import { Button, Group, Input, PasswordInput, Text } from '@mantine/core';
import { useId } from 'react';
import { useT } from '../i18n';
import { isConfigured } from './schema-form';
import { KeyValueInput } from './KeyValueInput';

export interface SecretFieldProps {
  label: string;
  description?: string | undefined;
  error?: string | undefined;
  required?: boolean | undefined;
  /** A text secret, or an object of named text secrets (name/value rows). */
  shape: 'text' | 'map';
  value: unknown;
  onChange: (value: unknown) => void;
  disabled?: boolean | undefined;
  /** Given for a secret that was stored when the form opened: offered while a new one is typed. */
  onKeep?: (() => void) | undefined;
}

export function SecretField({ label, description, error, required, shape, value, onChange, disabled, onKeep }: SecretFieldProps) {
  const t = useT();
  const id = useId();
  const stored = isConfigured(value);
  if (stored || value === null) {
    return (
      <Input.Wrapper label={label} description={description} error={error} withAsterisk={required} id={id}>
        <Group gap="xs" mt={4} aria-describedby={`${id}-state`}>
          <Text id={`${id}-state`} size="sm" fw={500}>{stored ? t('secretField.configured') : t('secretField.willRemove')}</Text>
          {!disabled && stored && (
            <>
              <Button size="compact-sm" variant="light" aria-label={t('secretField.replaceNamed', { name: label })}
                onClick={() => onChange(shape === 'map' ? {} : '')}>{t('secretField.replace')}</Button>
              <Button size="compact-sm" variant="subtle" color="red" aria-label={t('secretField.removeNamed', { name: label })}
                onClick={() => onChange(null)}>{t('secretField.remove')}</Button>
            </>
          )}
          {!disabled && value === null && (
            <Button size="compact-sm" variant="subtle" onClick={() => onChange({ configured: true })}>{t('secretField.undo')}</Button>
          )}
        </Group>
      </Input.Wrapper>
    );
  }
  // Typing a new one: a field that was configured before offers to keep it instead.
  const keep = onKeep && !disabled
    ? <Button size="compact-sm" variant="subtle" mt={4} onClick={onKeep}>{t('secretField.keep')}</Button>
    : null;
  if (shape === 'map') {
    return (
      <div>
        <KeyValueInput label={label} description={description} error={error} required={required} disabled={disabled}
          value={(value as Record<string, string> | undefined) ?? {}} onChange={onChange} secret />
        {keep}
      </div>
    );
  }
  return (
    <div>
      <PasswordInput label={label} description={description} error={error} withAsterisk={required} disabled={disabled}
        autoComplete="new-password" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.currentTarget.value)} />
      {keep}
    </div>
  );
}
