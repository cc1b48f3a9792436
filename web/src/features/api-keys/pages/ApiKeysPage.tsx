/** /api-keys: every member's keys (admins; the contract's listApiKeys and createApiKey are admin/admin). */
import { Button, Group, NativeSelect, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { RequireRole } from '../../../components/RequireRole';
import { useT } from '../../../i18n';
import { useAllUsers } from '../../users/hooks';
import { ApiKeysTable } from '../components/ApiKeysTable';
import { CreateApiKeyDialog } from '../components/CreateApiKeyDialog';

export function ApiKeysPage() {
  const t = useT();
  return <RequireRole min="admin" title={t('apiKeys.title')}><Keys /></RequireRole>;
}

function Keys() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const ownerId = params.get('owner') ?? undefined;
  const users = useAllUsers();
  const [creating, { open, close }] = useDisclosure(false);
  const setOwner = (value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set('owner', value); else next.delete('owner');
    setParams(next, { replace: true });
  };
  return (
    <>
      <PageHeader title={t('apiKeys.title')} actions={<Button onClick={open}>{t('apiKeys.create')}</Button>} />
      <Stack>
        <Text size="sm" c="dimmed">{t('apiKeys.intro')}</Text>
        <Group>
          <NativeSelect label={t('apiKeys.ownerFilter')} value={ownerId ?? ''} onChange={(e) => setOwner(e.currentTarget.value)} miw={240}
            data={[{ value: '', label: t('apiKeys.everyone') }, ...(users.data ?? []).map((u) => ({ value: u.id, label: u.name }))]} />
        </Group>
        <ApiKeysTable ownerId={ownerId} />
      </Stack>
      <CreateApiKeyDialog key={ownerId ?? 'all'} opened={creating} onClose={close} ownerId={ownerId} />
    </>
  );
}
