/**
 * The second step of a password sign-in, by the methods the account has: a code of the
 * authenticator app, a recovery code, or a passkey. A ticket that ended (used, expired, too many
 * wrong answers) leads back to the password.
 */
import { useState, type FormEvent } from 'react';
import { Anchor, Button, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { problemCode } from '../../../api/client';
import { useT } from '../../../i18n';
import { useSecondFactorCode, useSecondFactorPasskey, useSignedIn } from '../hooks';
import { describePasskeyError } from '../utils/webauthn';
import type { SecondStep } from './PasswordStep';

const ORDER = ['totp', 'passkey', 'recovery_code'] as const;
type Method = (typeof ORDER)[number];

function CodeForm({ ticket, method, onEnded }: { ticket: string; method: 'totp' | 'recovery_code'; onEnded: (error: unknown) => void }) {
  const t = useT();
  const signedIn = useSignedIn();
  const step = useSecondFactorCode();
  const [code, setCode] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    step.mutate({ ticket, method, code }, {
      onSuccess: (result) => signedIn(result),
      onError: (error) => { if (problemCode(error) === 'auth.ticket_invalid') onEnded(error); },
    });
  };
  const totp = method === 'totp';
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm">{t(totp ? 'auth.second.totpIntro' : 'auth.second.recoveryIntro')}</Text>
        {step.isError && <ProblemAlert error={problemCode(step.error) === 'auth.invalid_credentials' ? new Error(t('auth.second.wrongCode')) : step.error} />}
        <TextInput label={t(totp ? 'auth.second.totpLabel' : 'auth.second.recoveryLabel')} required autoFocus
          autoComplete={totp ? 'one-time-code' : 'off'} inputMode={totp ? 'numeric' : 'text'} value={code}
          placeholder={totp ? '123 456' : 'xxxx-xxxx-xxxx'} onChange={(e) => setCode(e.currentTarget.value)} />
        <Button type="submit" loading={step.isPending}>{t('auth.second.verify')}</Button>
      </Stack>
    </form>
  );
}

function PasskeyForm({ ticket, onEnded }: { ticket: string; onEnded: (error: unknown) => void }) {
  const t = useT();
  const signedIn = useSignedIn();
  const step = useSecondFactorPasskey();
  const use = () => step.mutate(ticket, {
    onSuccess: (result) => signedIn(result),
    onError: (error) => { if (problemCode(error) === 'auth.ticket_invalid') onEnded(error); },
  });
  return (
    <Stack>
      <Text size="sm">{t('auth.second.passkeyIntro')}</Text>
      {step.isError && <ProblemAlert error={problemCode(step.error) === 'auth.invalid_credentials' ? new Error(t('auth.passkey.refused')) : describePasskeyError(step.error, t)} />}
      <Button onClick={use} loading={step.isPending}>{t('auth.second.passkeyButton')}</Button>
    </Stack>
  );
}

export function SecondFactorStep({ step, onRestart }: { step: SecondStep; onRestart: (error?: unknown) => void }) {
  const t = useT();
  const methods = ORDER.filter((m) => step.methods.includes(m));
  const [tab, setTab] = useState<Method>(methods[0] ?? 'totp');
  return (
    <Stack>
      <Text size="sm">{t('auth.second.intro', { email: step.email })}</Text>
      <Tabs value={tab} onChange={(v) => setTab((v ?? tab) as Method)} keepMounted={false}>
        <Tabs.List grow aria-label={t('auth.second.methods')}>
          {methods.map((m) => <Tabs.Tab key={m} value={m}>{t(`auth.second.method.${m}`)}</Tabs.Tab>)}
        </Tabs.List>
        {methods.map((m) => (
          <Tabs.Panel key={m} value={m} pt="md">
            {m === 'passkey' ? <PasskeyForm ticket={step.ticket} onEnded={onRestart} />
              : <CodeForm ticket={step.ticket} method={m} onEnded={onRestart} />}
          </Tabs.Panel>
        ))}
      </Tabs>
      <Anchor component="button" type="button" size="sm" onClick={() => onRestart()}>{t('auth.second.restart')}</Anchor>
    </Stack>
  );
}
