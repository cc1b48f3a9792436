/**
 * The authenticator app: enrol it (QR code, first code, recovery codes shown once) while it is
 * off; while it is on, replace the recovery codes or turn it off (each with the password or a code).
 */
import { useState } from 'react';
import { Badge, Button, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useT } from '../../../i18n';
import { useDisableTotp, useRegenerateRecoveryCodes, useTwoFactorChanged } from '../hooks';
import { ReauthModal } from './ReauthModal';
import { RecoveryCodes } from './RecoveryCodes';
import { Section } from './Section';
import { TotpEnrolment } from './TotpEnrolment';

export function TwoFactorSection({ me }: { me: Schemas['Me'] }) {
  const t = useT();
  const changed = useTwoFactorChanged();
  const disable = useDisableTotp();
  const regenerate = useRegenerateRecoveryCodes();
  const [modal, setModal] = useState<'disable' | 'codes' | null>(null);
  // From the first code until the recovery codes are saved, the enrolment stays on screen
  // (whatever GET /me says meanwhile, e.g. refetched when the window regains focus).
  const [savingCodes, setSavingCodes] = useState(false);
  const on = me.two_factor_enabled || savingCodes;
  const enrolling = !me.two_factor_enabled || savingCodes;
  return (
    <Section title={t('profile.totp.title')} description={t('profile.totp.intro')}
      actions={!enrolling ? (
        <>
          <Button variant="default" onClick={() => setModal('codes')}>{t('profile.totp.newCodes')}</Button>
          <Button variant="light" color="red" onClick={() => setModal('disable')}>{t('profile.totp.turnOff')}</Button>
        </>
      ) : undefined}>
      <Text size="sm">
        <Badge variant="light" color={on ? 'green' : 'gray'} mr="xs">{on ? t('profile.totp.on') : t('profile.totp.off')}</Badge>
        {on ? t('profile.totp.onText') : t('profile.totp.offText')}
      </Text>
      {enrolling && (
        <TotpEnrolment onConfirmed={() => setSavingCodes(true)}
          onFinished={async () => { await changed(); setSavingCodes(false); }} />
      )}
      <ReauthModal opened={modal === 'disable'} onClose={() => setModal(null)} title={t('profile.totp.turnOffTitle')}
        intro={t('profile.totp.turnOffIntro')} confirmLabel={t('profile.totp.turnOff')} danger mutation={disable} />
      <ReauthModal opened={modal === 'codes'} onClose={() => setModal(null)} title={t('profile.totp.newCodesTitle')}
        intro={t('profile.totp.newCodesIntro')} confirmLabel={t('profile.totp.newCodes')} mutation={regenerate}
        done={(data) => <RecoveryCodes codes={data.recovery_codes} onDone={() => { regenerate.reset(); setModal(null); }} />} />
    </Section>
  );
}
