/** A member's role and account state as words (never by colour alone). */
import { Badge, Group } from '@mantine/core';
import { useT } from '../../../i18n';
import type { Role, User } from '../hooks';

const ROLE_COLOURS: Record<Role, string> = { viewer: 'gray', editor: 'blue', admin: 'grape' };

export function RoleBadge({ role }: { role: Role }) {
  const t = useT();
  return <Badge color={ROLE_COLOURS[role]} variant="outline">{t(`app.role.${role}`)}</Badge>;
}

export function AccountBadges({ user }: { user: User }) {
  const t = useT();
  return (
    <Group gap={4}>
      {user.enabled === false
        ? <Badge color="red" variant="dot">{t('users.disabled')}</Badge>
        : <Badge color="green" variant="dot">{t('users.enabled')}</Badge>}
      {user.must_change_password && <Badge color="yellow" variant="dot">{t('users.mustChangePassword')}</Badge>}
    </Group>
  );
}
