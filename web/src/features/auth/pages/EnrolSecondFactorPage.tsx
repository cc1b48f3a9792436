/**
 * The second factor the workspace requires (settings require_second_factor) of a user who has
 * none: until one is enrolled the API answers 403 auth.second_factor_enrolment_required to
 * everything else, and the app sends the person here. An authenticator app or a passkey will do.
 */
import { useState } from 'react';
import { Button, Divider, Group, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { useT } from '../../../i18n';
import { AddPasskey } from '../../profile/components/AddPasskey';
import { TotpEnrolment } from '../../profile/components/TotpEnrolment';
import { AuthCard } from '../components/AuthCard';
import { SignedInGate } from '../components/SignedInGate';
import { SignOutLink } from '../components/SignOutLink';
import { safeNext } from '../utils/next';
import { passkeysSupported } from '../utils/webauthn';

export function EnrolSecondFactorPage() {
  const t = useT();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [done, setDone] = useState(false);
  const goOn = async () => {
    // Everything the API refused before enrolment is asked again.
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
    await client.invalidateQueries();
    await navigate(safeNext(params.get('next')), { replace: true });
  };
  return (
    <SignedInGate>
      {() => (
        <AuthCard title={t('auth.enrol.title')} intro={t('auth.enrol.intro')} width={560}>
          {done ? (
            <Stack align="flex-start">
              <Text>{t('auth.enrol.done')}</Text>
              <Button onClick={() => void goOn()}>{t('auth.enrol.continue')}</Button>
            </Stack>
          ) : (
            <Stack>
              <Title order={2} size="h5">{t('auth.enrol.totp')}</Title>
              <TotpEnrolment onFinished={() => void goOn()} />
              {passkeysSupported() && (
                <>
                  <Divider label={t('auth.signIn.or')} labelPosition="center" />
                  <Title order={2} size="h5">{t('auth.enrol.passkey')}</Title>
                  <Group><AddPasskey variant="default" onAdded={() => setDone(true)} /></Group>
                </>
              )}
            </Stack>
          )}
          <Group justify="flex-end"><SignOutLink /></Group>
        </AuthCard>
      )}
    </SignedInGate>
  );
}
