/** A link's download log: its latest downloads (time, client address, browser), newest first. */
import { Button, Group, Table, Text } from '@mantine/core';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useLink } from '../hooks';

export function LinkDownloads({ linkId }: { linkId: string }) {
  const t = useT();
  const link = useLink(linkId);
  return (
    <QueryState query={link}>
      {(data) => (
        <>
          <Group justify="space-between" mb={4}>
            <Text size="sm" fw={500}>{t('links.log', { count: data.download_count })}</Text>
            <Button size="compact-xs" variant="subtle" loading={link.isFetching} onClick={() => void link.refetch()}>{t('links.refresh')}</Button>
          </Group>
          {data.downloads.length === 0 ? <Text size="sm" c="dimmed">{t('links.noDownloads')}</Text> : (
            <Table.ScrollContainer minWidth={480}>
              <Table withTableBorder aria-label={t('links.logOf', { title: data.report_title })}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{t('links.col.downloadedAt')}</Table.Th>
                    <Table.Th scope="col">{t('links.col.address')}</Table.Th>
                    <Table.Th scope="col">{t('links.col.agent')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.downloads.map((d, i) => (
                    <Table.Tr key={i}>
                      <Table.Td><Time value={d.at} /></Table.Td>
                      <Table.Td ff="monospace">{d.client_address}</Table.Td>
                      <Table.Td><Text size="xs" lineClamp={2}>{d.user_agent ?? '—'}</Text></Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </QueryState>
  );
}
