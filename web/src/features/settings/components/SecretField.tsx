/**
 * A secret setting, never shown (the secret convention): a stored one reads "Configured" with
 * Replace and Remove; Replace opens an empty input (with "Keep the stored one"), Remove marks it
 * for removal until saved (with Undo). The draft is `undefined` (keep), a string (replace, sent
 * only when typed) or `null` (remove); utils/secret.ts turns it into the request's value.
 *
 * Written here while the shared components/SecretField.tsx is not on main; to be unified with it.
 */
import { Button, Group, Input, PasswordInput, Text } from '@mantine/core';
import { useId } from 'react';
import { useT } from '../../../i18n';
import type { SecretDraft } from '../utils/secret';

export interface SecretFieldProps {
  label: string;
  description?: string | undefined;
  error?: string | undefined;
  /** Whether a value is stored (the API answered {configured: true}). */
  stored: boolean;
  value: SecretDraft;
  onChange: (value: SecretDraft) => void;
  disabled?: boolean;
  /** Stored secrets of this field may not be removed (a required one): no Remove button. */
  removable?: boolean;
}

export function SecretField({ label, description, error, stored, value, onChange, disabled, removable = true }: SecretFieldProps) {
  const t = useT();
  const id = useId();
  if (stored && (value === undefined || value === null)) {
    const removing = value === null;
    return (
      <Input.Wrapper label={label} description={description} error={error} id={id}>
        <Group gap="xs" mt={4}>
          <Text size="sm" fw={500} id={`${id}-state`}>{removing ? t('settings.secret.willRemove') : t('settings.secret.configured')}</Text>
          {!disabled && !removing && (
            <>
              <Button size="compact-sm" variant="light" aria-label={t('settings.secret.replaceNamed', { name: label })}
                onClick={() => onChange('')}>{t('settings.secret.replace')}</Button>
              {removable && (
                <Button size="compact-sm" variant="subtle" color="red" aria-label={t('settings.secret.removeNamed', { name: label })}
                  onClick={() => onChange(null)}>{t('settings.secret.remove')}</Button>
              )}
            </>
          )}
          {!disabled && removing && (
            <Button size="compact-sm" variant="subtle" aria-label={t('settings.secret.undoNamed', { name: label })}
              onClick={() => onChange(undefined)}>{t('settings.secret.undo')}</Button>
          )}
        </Group>
      </Input.Wrapper>
    );
  }
  return (
    <div>
      <PasswordInput label={label} description={description} error={error} disabled={disabled} autoComplete="new-password"
        value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.currentTarget.value)} />
      {stored && !disabled && (
        <Button size="compact-sm" variant="subtle" mt={4} onClick={() => onChange(undefined)}>{t('settings.secret.keep')}</Button>
      )}
    </div>
  );
}
