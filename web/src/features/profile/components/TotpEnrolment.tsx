/**
 * Enrolling an authenticator app: a new secret (as a QR code, and as text for apps that cannot
 * scan), a first code from the app turns it on, and the recovery codes are shown once.
 */
import { useState, type FormEvent } from 'react';
import { Button, Code, CopyButton, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { isFieldProblem, useFieldErrors } from '../../auth/components/FieldProblems';
import { useConfirmTotp, useStartTotpSetup } from '../hooks';
import { RecoveryCodes } from './RecoveryCodes';

/** The Base32 secret in groups of four, as authenticator apps show it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * `onConfirmed` runs once the app is on (the codes are then on screen: the parent keeps this part
 * shown, whatever GET /me says meanwhile), `onFinished` once the person has saved the codes.
 */
export function TotpEnrolment({ onConfirmed, onFinished, startLabel }: { onConfirmed?: () => void; onFinished: () => void; startLabel?: string }) {
  const t = useT();
  const start = useStartTotpSetup();
  const confirm = useConfirmTotp();
  const [code, setCode] = useState('');
  const errors = useFieldErrors(confirm.error);
  if (confirm.data) return <RecoveryCodes codes={confirm.data.recovery_codes} onDone={onFinished} />;
  if (!start.data) {
    return (
      <Stack align="flex-start">
        {start.isError && <ProblemAlert error={start.error} />}
        <Button onClick={() => start.mutate()} loading={start.isPending}>{startLabel ?? t('profile.totp.start')}</Button>
      </Stack>
    );
  }
  const submit = (e: FormEvent) => { e.preventDefault(); confirm.mutate(code, { onSuccess: () => onConfirmed?.() }); };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm">{t('profile.totp.scan')}</Text>
        <Image src={start.data.qr_code} alt={t('profile.totp.qr')} w={200} h={200} bg="white" radius="sm" />
        <Stack gap={4}>
          <Text size="sm">{t('profile.totp.manual')}</Text>
          <Group gap="xs">
            <Code fz="sm" aria-label={t('profile.totp.secret')}>{grouped(start.data.secret)}</Code>
            <CopyButton value={start.data.secret}>
              {({ copied, copy }) => <Button size="compact-xs" variant="subtle" onClick={copy}>{copied ? t('profile.codes.copied') : t('profile.totp.copySecret')}</Button>}
            </CopyButton>
          </Group>
        </Stack>
        {confirm.isError && !isFieldProblem(confirm.error) && <ProblemAlert error={confirm.error} />}
        <TextInput label={t('profile.totp.code')} description={t('profile.totp.codeHint')} required maw={240}
          autoComplete="one-time-code" inputMode="numeric" value={code} error={errors.code}
          onChange={(e) => setCode(e.currentTarget.value)} />
        <Group><Button type="submit" loading={confirm.isPending}>{t('profile.totp.turnOn')}</Button></Group>
      </Stack>
    </form>
  );
}
