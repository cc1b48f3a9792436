import { notify } from '../../auth/utils/notify';
import { useT } from '../../../i18n';
import { PasswordForm } from './PasswordForm';
import { Section } from './Section';

/** The password: changing it signs out every other session. */
export function PasswordSection() {
  const t = useT();
  return (
    <Section title={t('profile.password.title')} description={t('profile.password.intro')}>
      <PasswordForm currentLabel={t('auth.currentPassword')} submitLabel={t('profile.password.submit')}
        onChanged={() => notify(t, t('profile.password.changed'))} />
    </Section>
  );
}
