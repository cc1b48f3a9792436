/** Changing the password: the current one, the new one twice (a typo guard; the server judges the rest). */
import { useState, type FormEvent } from 'react';
import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { isFieldProblem, useFieldErrors } from '../../auth/components/FieldProblems';
import { useChangePassword } from '../hooks';

const EMPTY = { current: '', next: '', repeat: '' };

export function PasswordForm({ currentLabel, submitLabel, onChanged }: { currentLabel: string; submitLabel: string; onChanged: () => void }) {
  const t = useT();
  const change = useChangePassword();
  const [form, setForm] = useState(EMPTY);
  const [mismatch, setMismatch] = useState(false);
  const errors = useFieldErrors(change.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form.next !== form.repeat) { setMismatch(true); return; }
    setMismatch(false);
    change.mutate({ current_password: form.current, new_password: form.next }, {
      onSuccess: () => { setForm(EMPTY); onChanged(); },
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={420}>
        {change.isError && !isFieldProblem(change.error) && <ProblemAlert error={change.error} />}
        <PasswordInput label={currentLabel} required autoComplete="current-password" value={form.current}
          error={errors.current_password} onChange={(e) => setForm({ ...form, current: e.currentTarget.value })} />
        <PasswordInput label={t('auth.newPassword')} description={t('auth.passwordHint')} required autoComplete="new-password"
          value={form.next} error={errors.new_password} onChange={(e) => setForm({ ...form, next: e.currentTarget.value })} />
        <PasswordInput label={t('auth.repeatPassword')} required autoComplete="new-password" value={form.repeat}
          error={mismatch ? t('auth.passwordsDiffer') : undefined} onChange={(e) => setForm({ ...form, repeat: e.currentTarget.value })} />
        <Group><Button type="submit" loading={change.isPending}>{submitLabel}</Button></Group>
      </Stack>
    </form>
  );
}
