/**
 * The changes between two versions: the SQL as a unified diff (lines removed and added counted in
 * words too), and the connection and parameters that changed.
 */
import { Group, List, Select, Stack, Text, Title } from '@mantine/core';
import { CodeEditor } from '../../../components/CodeEditor';
import { useT } from '../../../i18n';
import { useConnections, useQueryVersion, type Query } from '../hooks';
import { lineChanges, versionChanges, type VersionChange } from '../utils/versionChanges';

interface Props {
  query: Query;
  from: number;
  to: number;
  onChange: (from: number, to: number) => void;
}

export function VersionDiff({ query, from, to, onChange }: Props) {
  const t = useT();
  const a = useQueryVersion(query.id, from);
  const b = useQueryVersion(query.id, to);
  const connections = useConnections();
  const connectionName = (id: string) => connections.data?.find((c) => c.id === id)?.name ?? id;
  const numbers = Array.from({ length: query.current_version }, (_, i) => query.current_version - i)
    .map((n) => ({ value: String(n), label: t('queries.versionNumber', { number: n }) }));
  const describe = (c: VersionChange): string => {
    switch (c.kind) {
      case 'connection': return t('queries.diff.connection', { from: connectionName(c.from), to: connectionName(c.to) });
      case 'parameter.added': return t('queries.diff.parameterAdded', { name: c.name });
      case 'parameter.removed': return t('queries.diff.parameterRemoved', { name: c.name });
      case 'parameter.changed': return t('queries.diff.parameterChanged', { name: c.name, fields: c.fields.map((f) => t(`queries.diff.field.${f}`)).join(', ') });
    }
  };
  const lines = a.data && b.data ? lineChanges(a.data.sql, b.data.sql) : undefined;
  const other = a.data && b.data ? versionChanges(a.data, b.data) : [];
  return (
    <section aria-labelledby="query-diff">
      <Title order={2} size="h4" id="query-diff" mb="xs">{t('queries.diff.title')}</Title>
      <Group gap="sm" mb="sm" align="flex-end">
        <Select label={t('queries.diff.from')} data={numbers} value={String(from)} allowDeselect={false} w={160}
          onChange={(v) => v && onChange(Number(v), to)} />
        <Select label={t('queries.diff.to')} data={numbers} value={String(to)} allowDeselect={false} w={160}
          onChange={(v) => v && onChange(from, Number(v))} />
      </Group>
      {a.isError || b.isError ? <Text c="red" role="alert">{t('queries.diff.missing')}</Text> : a.data && b.data && lines && (
        <Stack gap="xs">
          <Text size="sm" role="status">
            {lines.removed === 0 && lines.added === 0 ? t('queries.diff.sameSql') : t('queries.diff.lines', { removed: lines.removed, added: lines.added })}
          </Text>
          {other.length > 0 && <List size="sm">{other.map((c, i) => <List.Item key={i}>{describe(c)}</List.Item>)}</List>}
          <CodeEditor language="sql" label={t('queries.diff.sqlLabel', { from, to })} value={b.data.sql} original={a.data.sql} readOnly maxHeight="40rem" />
        </Stack>
      )}
    </section>
  );
}
