/**
 * The configuration directory (SVC_GITOPS_DIR) as the scheduler last reconciled it: when, with what
 * result, the problems of each file when it failed, how many resources it manages, and the drift of
 * the detached ones (with Attach, which shows what the next sync will change).
 */
import { useState } from 'react';
import { Alert, Badge, Button, Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useGitopsStatus } from '../hooks';
import { FieldDiff } from './FieldDiff';
import { useCan } from '../../../api/session';
import { AttachDialog } from './ManagedBadge';

const RESULT_COLOURS = { applied: 'green', unchanged: 'gray', failed: 'red' } as const;

export function GitopsSection() {
  const t = useT();
  const status = useGitopsStatus();
  return (
    <Stack gap="md" maw={960}>
      <Title order={2} size="h4">{t('config.gitops.title')}</Title>
      <QueryState query={status}>
        {(s) => (s.enabled ? <GitopsStatus s={s} /> : (
          <Alert color="blue" title={t('config.gitops.offTitle')}>{t('config.gitops.off')}</Alert>
        ))}
      </QueryState>
    </Stack>
  );
}

function GitopsStatus({ s }: { s: Schemas['GitopsStatus'] }) {
  const t = useT();
  const admin = useCan('admin');
  // Held here, not in the drift entry: attaching removes the entry, the dialog shows what follows.
  const [attaching, setAttaching] = useState<{ kind: Schemas['ConfigKind']; id: string; name: string } | null>(null);
  return (
    <Stack gap="lg">
      <Table variant="vertical" layout="fixed" withTableBorder>
        <Table.Tbody>
          <Table.Tr><Table.Th w={220}>{t('config.gitops.directory')}</Table.Th><Table.Td><Code>{s.directory}</Code></Table.Td></Table.Tr>
          <Table.Tr><Table.Th>{t('config.gitops.lastReconcile')}</Table.Th><Table.Td><Time value={s.last_reconcile_at} /></Table.Td></Table.Tr>
          <Table.Tr>
            <Table.Th>{t('config.gitops.result')}</Table.Th>
            <Table.Td>{s.result ? <Badge color={RESULT_COLOURS[s.result]} variant="light">{t(`config.gitops.result.${s.result}`)}</Badge> : t('config.gitops.notYet')}</Table.Td>
          </Table.Tr>
          <Table.Tr><Table.Th>{t('config.gitops.managed')}</Table.Th><Table.Td>{s.managed}</Table.Td></Table.Tr>
          <Table.Tr><Table.Th>{t('config.gitops.detached')}</Table.Th><Table.Td>{s.detached}</Table.Td></Table.Tr>
        </Table.Tbody>
      </Table>
      {s.errors.length > 0 && (
        <Stack gap="xs">
          <Title order={3} size="h5" id="gitops-errors">{t('config.gitops.errors')}</Title>
          <Table.ScrollContainer minWidth={600}>
            <Table aria-labelledby="gitops-errors">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('config.gitops.file')}</Table.Th>
                  <Table.Th>{t('config.gitops.line')}</Table.Th>
                  <Table.Th>{t('config.gitops.field')}</Table.Th>
                  <Table.Th>{t('config.gitops.message')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {s.errors.map((e, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>{e.path ? <Code>{e.path}</Code> : '—'}</Table.Td>
                    <Table.Td>{e.line ?? '—'}</Table.Td>
                    <Table.Td>{e.field ? <Code>{e.field}</Code> : '—'}</Table.Td>
                    <Table.Td>{e.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Stack>
      )}
      <Stack gap="xs">
        <Title order={3} size="h5">{t('config.gitops.drift')}</Title>
        {s.drift.length === 0 ? <Text size="sm">{t('config.gitops.noDrift')}</Text> : s.drift.map((d) => (
          <Paper key={`${d.kind}/${d.id}`} withBorder p="sm" component="section" aria-label={t('config.gitops.driftOf', { kind: t(`config.kind.${d.kind}`), name: d.name })}>
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={4} size="h6">{t(`config.kind.${d.kind}`)} <Text span ff="monospace" inherit>{d.name}</Text></Title>
                {admin && (
                  <Button size="compact-sm" variant="light" aria-label={t('config.managed.attachNamed', { name: d.name })}
                    onClick={() => setAttaching({ kind: d.kind, id: d.id, name: d.name })}>{t('config.managed.attach')}</Button>
                )}
              </Group>
              <FieldDiff changes={d.diff} label={t('config.gitops.driftOf', { kind: t(`config.kind.${d.kind}`), name: d.name })} />
            </Stack>
          </Paper>
        ))}
      </Stack>
      {attaching && <AttachDialog {...attaching} file={s.directory ?? t('config.managed.directory')} onClose={() => setAttaching(null)} />}
    </Stack>
  );
}
