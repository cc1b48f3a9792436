/** The versions of a query, newest first: who made each and when, which one is current, compare and restore. */
import { Badge, Button, Center, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { useCan } from '../../../api/session';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useQueryVersions, useUserNames, type Query } from '../hooks';
import { RestoreButton } from './RestoreButton';

interface Props {
  query: Query;
  from: number;
  to: number;
  onCompare: (from: number, to: number) => void;
  onRestored: () => void;
}

export function VersionList({ query, from, to, onCompare, onRestored }: Props) {
  const t = useT();
  const canEdit = useCan('editor') && !(query.managed?.by === 'gitops' && !query.managed.detached);
  const versions = useQueryVersions(query.id);
  const items = versions.data?.pages.flatMap((p) => p.items) ?? [];
  const names = useUserNames(items.flatMap((v) => (v.created_by ? [v.created_by] : [])));
  return (
    <section aria-labelledby="query-version-list">
      <Text component="h2" id="query-version-list" fw={600} size="lg" mb="xs">{t('queries.versions')}</Text>
      <QueryState query={versions}>
        {() => (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table aria-labelledby="query-version-list" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('queries.version')}</Table.Th>
                    <Table.Th>{t('queries.made')}</Table.Th>
                    <Table.Th>{t('queries.by')}</Table.Th>
                    <Table.Th><VisuallyHidden>{t('queries.actions')}</VisuallyHidden></Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((v) => {
                    const current = v.number === query.current_version;
                    const shown = v.number === from || v.number === to;
                    return (
                      <Table.Tr key={v.number} aria-current={shown ? 'true' : undefined}>
                        <Table.Td>
                          <Group gap="xs">
                            <Text size="sm" fw={shown ? 600 : 400}>{t('queries.versionNumber', { number: v.number })}</Text>
                            {current && <Badge size="sm" variant="light">{t('queries.current')}</Badge>}
                            {v.restored_from && <Badge size="sm" variant="outline" color="gray">{t('queries.copyOf', { number: v.restored_from })}</Badge>}
                          </Group>
                        </Table.Td>
                        <Table.Td><Time value={v.created_at} /></Table.Td>
                        <Table.Td>{v.created_by ? names[v.created_by] ?? '…' : '—'}</Table.Td>
                        <Table.Td>
                          <Group gap="xs" justify="flex-end" wrap="nowrap">
                            {!current && (
                              <Button size="compact-sm" variant="subtle" onClick={() => onCompare(v.number, query.current_version)}
                                aria-label={t('queries.compareWithCurrentN', { number: v.number })}>{t('queries.compareWithCurrent')}</Button>
                            )}
                            {!current && canEdit && <RestoreButton query={query} number={v.number} onRestored={onRestored} />}
                          </Group>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {versions.hasNextPage && (
              <Center mt="sm"><Button variant="light" loading={versions.isFetchingNextPage} onClick={() => void versions.fetchNextPage()}>{t('app.loadMore')}</Button></Center>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}
