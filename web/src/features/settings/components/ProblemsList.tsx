/** The system problems Herald recorded (open, resolved or all), newest first, in pages; each opens its page. */
import { useState } from 'react';
import { Anchor, Badge, Button, Group, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useSystemProblems, type ProblemState } from '../hooks';

export function ProblemsList() {
  const t = useT();
  const [state, setState] = useState<ProblemState>('open');
  const problems = useSystemProblems(state);
  const items = problems.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={3} size="h4" id="problems-title">{t('settings.problems.title')}</Title>
        <SegmentedControl size="xs" value={state} onChange={(v) => setState(v as ProblemState)} aria-label={t('settings.problems.filter')}
          data={(['open', 'resolved', 'all'] as const).map((s) => ({ value: s, label: t(`settings.problems.${s}`) }))} />
      </Group>
      {problems.isError && <ProblemAlert error={problems.error} onRetry={() => void problems.refetch()} />}
      {problems.isSuccess && items.length === 0 && <EmptyState title={t(`settings.problems.none.${state}`)} />}
      {items.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-labelledby="problems-title">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('settings.problems.problem')}</Table.Th>
                <Table.Th>{t('settings.problems.severity')}</Table.Th>
                <Table.Th>{t('settings.problems.opened')}</Table.Th>
                <Table.Th>{t('settings.problems.resolved')}</Table.Th>
                <Table.Th>{t('settings.problems.alerts')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/settings/problems/${p.id}`} size="sm">{t(`settings.kind.${p.kind}`)}</Anchor>
                    <Text size="sm">{p.message}</Text>
                  </Table.Td>
                  <Table.Td><SeverityBadge severity={p.severity} /></Table.Td>
                  <Table.Td><Time value={p.opened_at} /></Table.Td>
                  <Table.Td>{p.resolved_at ? <Time value={p.resolved_at} /> : t('settings.problems.stillOpen')}</Table.Td>
                  <Table.Td>{p.alerts}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {problems.hasNextPage && (
        <div><Button variant="default" loading={problems.isFetchingNextPage} onClick={() => void problems.fetchNextPage()}>{t('app.loadMore')}</Button></div>
      )}
    </Stack>
  );
}

export function SeverityBadge({ severity }: { severity: 'warning' | 'critical' }) {
  const t = useT();
  return <Badge color={severity === 'critical' ? 'red' : 'yellow'} variant="light">{t(`settings.problems.severity.${severity}`)}</Badge>;
}
