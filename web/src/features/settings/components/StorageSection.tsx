/** Where result files are kept, how much, and how long (GET /system/storage). Set by the environment, shown here. */
import { Alert, Code, Stack, Table } from '@mantine/core';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { useStorage } from '../hooks';
import { formatBytes } from '../utils/format';
import { SectionTitle } from './SaveFeedback';

export function StorageSection() {
  const { t, locale } = useI18n();
  const query = useStorage();
  return (
    <Stack gap="md" maw={760}>
      <SectionTitle title={t('settings.storage.title')} intro={t('settings.storage.intro')} />
      <QueryState query={query}>
        {(s) => (
          <>
            <Table variant="vertical" layout="fixed" withTableBorder>
              <Table.Tbody>
                <Row label={t('settings.storage.backend')}>{t(`settings.storage.backend.${s.backend}`)}</Row>
                <Row label={t('settings.storage.location')}><Code>{s.location}</Code></Row>
                <Row label={t('settings.storage.used')}>{t('settings.storage.usedValue', { size: formatBytes(s.bytes, locale), files: s.files })}</Row>
                <Row label={t('settings.storage.oldest')}><Time value={s.oldest_file_at} /></Row>
                <Row label={t('settings.storage.retention')}>{t('settings.storage.retentionValue', { days: s.retention_days })}</Row>
                <Row label={t('settings.storage.backups')}>{s.backups.configured ? t('settings.storage.backupsOn') : t('settings.storage.backupsOff')}</Row>
              </Table.Tbody>
            </Table>
            {!s.backups.configured && <Alert color="blue" title={t('settings.storage.backupHintTitle')}>{t('settings.storage.backupHint')}</Alert>}
          </>
        )}
      </QueryState>
    </Stack>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={220}>{label}</Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}
