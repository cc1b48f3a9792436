/** Confirms a change to the second factor with the current password or a current code. */
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Group, Modal, PasswordInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { isFieldProblem, useFieldErrors } from '../../auth/components/FieldProblems';
import type { Reauthentication } from '../hooks';

interface Props<T> {
  opened: boolean;
  onClose: () => void;
  title: string;
  intro: string;
  confirmLabel: string;
  danger?: boolean;
  mutation: UseMutationResult<T, Error, Reauthentication>;
  /** What to show once the mutation succeeded (the new recovery codes); without it the modal closes. */
  done?: (data: T) => ReactNode;
}

export function ReauthModal<T>({ opened, onClose, title, intro, confirmLabel, danger, mutation, done }: Props<T>) {
  const t = useT();
  const [mode, setMode] = useState<'password' | 'code'>('password');
  const [value, setValue] = useState('');
  const errors = useFieldErrors(mutation.error);
  const close = () => { setValue(''); mutation.reset(); onClose(); };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate(mode === 'password' ? { password: value } : { code: value }, {
      onSuccess: () => { setValue(''); if (!done) close(); },
    });
  };
  return (
    <Modal opened={opened} onClose={close} title={title} size="lg" closeButtonProps={{ 'aria-label': t('app.close') }}>
      {mutation.isSuccess && done ? done(mutation.data) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm">{intro}</Text>
            <SegmentedControl value={mode} onChange={(v) => { setMode(v as 'password' | 'code'); setValue(''); mutation.reset(); }}
              aria-label={t('profile.reauth.with')}
              data={[{ value: 'password', label: t('profile.reauth.password') }, { value: 'code', label: t('profile.reauth.code') }]} />
            {mutation.isError && !isFieldProblem(mutation.error) && <ProblemAlert error={mutation.error} />}
            {mode === 'password'
              ? <PasswordInput label={t('auth.currentPassword')} required autoComplete="current-password" value={value}
                  error={errors.password} data-autofocus onChange={(e) => setValue(e.currentTarget.value)} />
              : <TextInput label={t('profile.reauth.codeLabel')} required autoComplete="one-time-code" value={value}
                  error={errors.code} onChange={(e) => setValue(e.currentTarget.value)} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>{t('app.cancel')}</Button>
              <Button type="submit" color={danger ? 'red' : undefined} loading={mutation.isPending}>{confirmLabel}</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
