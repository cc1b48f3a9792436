/** The sign-in methods without a password: a passkey the browser holds, and single sign-on. */
import { Button, Divider, Stack } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { usePasskeySignIn, useSignedIn, useSsoSignIn } from '../hooks';
import { describePasskeyError, passkeysSupported } from '../utils/webauthn';

export function OtherSignIn() {
  const t = useT();
  const [params] = useSearchParams();
  const signedIn = useSignedIn();
  const passkey = usePasskeySignIn();
  const sso = useSsoSignIn();
  const error = problemCode(passkey.error) === 'auth.invalid_credentials' ? new Error(t('auth.passkey.refused')) : (passkey.error ?? sso.error);
  return (
    <Stack gap="sm">
      <Divider label={t('auth.signIn.or')} labelPosition="center" />
      {error && <ProblemAlert error={describePasskeyError(error, t)} />}
      {passkeysSupported() && (
        <Button variant="default" loading={passkey.isPending}
          onClick={() => { sso.reset(); passkey.mutate(undefined, { onSuccess: (result) => signedIn(result) }); }}>
          {t('auth.signIn.passkey')}
        </Button>
      )}
      <Button variant="default" loading={sso.isPending} onClick={() => { passkey.reset(); sso.mutate(params.get('next')); }}>
        {t('auth.signIn.sso')}
      </Button>
    </Stack>
  );
}
