/** Field changes as a table: path, before, after (secrets only as set, unchanged or missing). */
import { Badge, Code, Table, Text } from '@mantine/core';
import { useT } from '../../../i18n';
import { diffRows, type FieldChange } from '../utils/diff';

export function FieldDiff({ changes, label }: { changes: FieldChange[]; label: string }) {
  const t = useT();
  const rows = diffRows(changes);
  if (rows.length === 0) return <Text size="sm">{t('config.diff.none')}</Text>;
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-label={label} verticalSpacing={4} layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="30%">{t('config.diff.field')}</Table.Th>
            <Table.Th>{t('config.diff.before')}</Table.Th>
            <Table.Th>{t('config.diff.after')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.path}>
              <Table.Td><Code>{r.path}</Code></Table.Td>
              {r.kind === 'secret' ? (
                <Table.Td colSpan={2}><Badge variant="light" color={r.secret === 'missing' ? 'red' : 'gray'}>{t(`config.diff.secret.${r.secret}`)}</Badge></Table.Td>
              ) : (
                <>
                  <Table.Td><Value text={r.before} empty={t('config.diff.notSet')} removed={r.kind !== 'added'} /></Table.Td>
                  <Table.Td><Value text={r.after} empty={t('config.diff.notSet')} removed={false} /></Table.Td>
                </>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Value({ text, empty, removed }: { text: string | null; empty: string; removed: boolean }) {
  if (text === null) return <Text size="sm" fs="italic">{empty}</Text>;
  const Tag = removed ? 'del' : 'ins';
  return (
    <Text component={Tag} size="sm" ff="monospace" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', textDecoration: 'none' }}>{text}</Text>
  );
}
