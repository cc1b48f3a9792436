/** The signed-in person's own account: name and preferences, password, sessions, second factors. */
import { Stack } from '@mantine/core';
import { useCurrentUser } from '../../../api/session';
import { PageHeader } from '../../../components/PageHeader';
import { useT } from '../../../i18n';
import { AccountSection } from '../components/AccountSection';
import { PasskeysSection } from '../components/PasskeysSection';
import { PasswordSection } from '../components/PasswordSection';
import { SessionsSection } from '../components/SessionsSection';
import { TwoFactorSection } from '../components/TwoFactorSection';

export function ProfilePage() {
  const t = useT();
  const me = useCurrentUser();
  return (
    <Stack maw={960}>
      <PageHeader title={t('profile.title')} />
      <AccountSection me={me} />
      <PasswordSection />
      <TwoFactorSection me={me} />
      <PasskeysSection />
      <SessionsSection />
    </Stack>
  );
}
