/** /users: the members (admins). */
import { Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { PageHeader } from '../../../components/PageHeader';
import { RequireRole } from '../../../components/RequireRole';
import { useT } from '../../../i18n';
import { AddUserDialog } from '../components/AddUserDialog';
import { UsersTable } from '../components/UsersTable';

export function UsersPage() {
  const t = useT();
  return <RequireRole min="admin" title={t('users.title')}><Members /></RequireRole>;
}

function Members() {
  const t = useT();
  const [adding, { open, close }] = useDisclosure(false);
  return (
    <>
      <PageHeader title={t('users.title')} actions={<Button onClick={open}>{t('users.add')}</Button>} />
      <UsersTable />
      <AddUserDialog opened={adding} onClose={close} />
    </>
  );
}
