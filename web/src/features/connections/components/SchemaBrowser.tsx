/**
 * The connection's cached schema: its tables and views with their columns, when it was read, a
 * filter, and Refresh (editors and admins: POST …/schema/refresh introspects the database again).
 */
import { Accordion, Badge, Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useCan } from '../../../api/session';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useConnectionSchema, useRefreshConnectionSchema, type ConnectionSchema } from '../hooks';
import { matchesTable } from '../utils/settings';
import { TestResult } from './TestResult';

type SchemaTable = ConnectionSchema['tables'][number];

function Columns({ table }: { table: SchemaTable }) {
  const t = useT();
  return (
    <Table.ScrollContainer minWidth={360}>
      <Table withTableBorder={false} aria-label={t('connections.schema.columnsOf', { name: `${table.schema}.${table.name}` })}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('connections.schema.column')}</Table.Th>
            <Table.Th>{t('connections.schema.type')}</Table.Th>
            <Table.Th>{t('connections.schema.nullable')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {table.columns.map((c) => (
            <Table.Tr key={c.name}>
              <Table.Td><Text size="sm" ff="monospace">{c.name}</Text></Table.Td>
              <Table.Td><Text size="sm" ff="monospace">{c.type}</Text></Table.Td>
              <Table.Td><Text size="sm">{c.nullable ? t('connections.schema.yes') : t('connections.schema.no')}</Text></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Tables({ schema }: { schema: ConnectionSchema }) {
  const t = useT();
  const [filter, setFilter] = useState('');
  if (schema.refreshed_at === null) {
    return <Stack gap={4}><Text size="sm">{t('connections.schema.never')}</Text><Text size="sm" c="dimmed">{t('connections.schema.neverHelp')}</Text></Stack>;
  }
  if (schema.tables.length === 0) return <Text size="sm">{t('connections.schema.none')}</Text>;
  const shown = schema.tables.filter((tb) => matchesTable(tb, filter));
  return (
    <Stack gap="sm">
      <TextInput label={t('connections.schema.filter')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} />
      <Text size="sm" c="dimmed">{t('connections.schema.count', { count: schema.tables.length })}</Text>
      {shown.length === 0 ? <Text size="sm">{t('connections.schema.noMatch')}</Text> : (
        <Accordion multiple variant="contained">
          {shown.map((tb) => (
            <Accordion.Item key={`${tb.schema}.${tb.name}`} value={`${tb.schema}.${tb.name}`}>
              <Accordion.Control>
                <Group gap="xs" wrap="nowrap">
                  <Text size="sm" ff="monospace">{tb.schema}.{tb.name}</Text>
                  <Badge variant="light" color={tb.kind === 'view' ? 'grape' : 'gray'} size="sm">{t(`connections.schema.${tb.kind}`)}</Badge>
                </Group>
              </Accordion.Control>
              <Accordion.Panel><Columns table={tb} /></Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      )}
    </Stack>
  );
}

export function SchemaBrowser({ connectionId }: { connectionId: string }) {
  const t = useT();
  const canRefresh = useCan('editor');
  const schema = useConnectionSchema(connectionId);
  const refresh = useRefreshConnectionSchema(connectionId);
  return (
    <Paper withBorder p="md" component="section" aria-label={t('connections.schema')}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4">{t('connections.schema')}</Title>
        <Group gap="sm">
          {schema.data?.refreshed_at && (
            <Text size="sm" data-testid="schema-refreshed-at">{t('connections.schema.refreshedAt')}: <Time value={schema.data.refreshed_at} /></Text>
          )}
          {canRefresh && (
            <Button variant="light" size="xs" loading={refresh.isPending} onClick={() => refresh.mutate()}>{t('connections.schema.refresh')}</Button>
          )}
        </Group>
      </Group>
      <Stack gap="sm">
        {refresh.isError && <TestResult result={undefined} error={refresh.error} />}
        {refresh.isSuccess && (
          <Text size="sm" role="status">{t('connections.schema.refreshed', { count: refresh.data.tables.length })}</Text>
        )}
        <QueryState query={schema}>{(s) => <Tables schema={s} />}</QueryState>
      </Stack>
    </Paper>
  );
}
