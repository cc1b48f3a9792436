/**
 * Sign-in: email and password, then the second step when the account has one; or a passkey
 * without a password; or single sign-on. Notices: a session that ended, a sign-out, and the
 * error code the single sign-on callback sends back (/sign-in?error=<code>).
 */
import { useState } from 'react';
import { Alert } from '@mantine/core';
import { Navigate, useSearchParams } from 'react-router';
import { SESSION_ENDED, useSetupStatus } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { AuthCard } from '../components/AuthCard';
import { OtherSignIn } from '../components/OtherSignIn';
import { PasswordStep, type SecondStep } from '../components/PasswordStep';
import { SecondFactorStep } from '../components/SecondFactorStep';

function Notices({ restartError }: { restartError: unknown }) {
  const t = useT();
  const [params] = useSearchParams();
  const [ended] = useState(() => sessionStorage.getItem(SESSION_ENDED) === '1');
  const ssoError = params.get('error');
  const ssoText = ssoError ? t(`problem.${ssoError}`) : '';
  return (
    <>
      {ended && <Alert color="blue" role="status">{t('auth.signIn.expired')}</Alert>}
      {params.get('signed_out') && <Alert color="green" role="status">{t('auth.signOut.done')}</Alert>}
      {ssoError && (
        <Alert color="red" role="alert" title={t('auth.sso.failed')}>
          {ssoText === `problem.${ssoError}` ? t('auth.sso.failedCode', { code: ssoError }) : ssoText}
        </Alert>
      )}
      {restartError !== undefined && <ProblemAlert error={restartError} />}
    </>
  );
}

export function SignInPage() {
  const t = useT();
  const setup = useSetupStatus();
  const [second, setSecond] = useState<SecondStep | null>(null);
  const [restartError, setRestartError] = useState<unknown>(undefined);
  const [email, setEmail] = useState('');
  if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;
  return (
    <AuthCard title={second ? t('auth.second.title') : t('auth.signIn.title')}>
      <Notices restartError={restartError} />
      {second ? (
        <SecondFactorStep step={second} onRestart={(error) => { setRestartError(error); setEmail(second.email); setSecond(null); }} />
      ) : (
        <>
          <PasswordStep initialEmail={email} onSecondFactor={(step) => { setRestartError(undefined); setSecond(step); }} />
          <OtherSignIn />
        </>
      )}
    </AuthCard>
  );
}
