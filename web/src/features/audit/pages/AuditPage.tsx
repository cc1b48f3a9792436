/** /audit: the security events, filtered by the address's type and member (admins). */
import { Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { RequireRole } from '../../../components/RequireRole';
import { useT } from '../../../i18n';
import { AuditFilters } from '../components/AuditFilters';
import { AuditTable } from '../components/AuditTable';
import { parseFilters } from '../utils/filters';

export function AuditPage() {
  const t = useT();
  return <RequireRole min="admin" title={t('audit.title')}><Trail /></RequireRole>;
}

function Trail() {
  const t = useT();
  const [params] = useSearchParams();
  const filters = parseFilters(params);
  return (
    <>
      <PageHeader title={t('audit.title')} />
      <Stack>
        <Text size="sm" c="dimmed">{t('audit.intro')}</Text>
        <AuditFilters />
        <AuditTable filters={filters} />
      </Stack>
    </>
  );
}
