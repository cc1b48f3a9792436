/** A delivery's rendered message (POST /deliveries/preview): subject, body, table, attachment, link, recipients. */
import { Anchor, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

type Preview = Schemas['DeliveryPreview'];

const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function DeliveryPreview({ preview }: { preview: Preview }) {
  const t = useT();
  const table = preview.table;
  return (
    <Paper withBorder p="sm" bg="var(--mantine-color-body)" component="section" aria-label={t('reports.preview.title')}>
      <Stack gap="xs">
        <Group gap="xs">
          <Text fw={600} size="sm">{t('reports.preview.title')}</Text>
          <Text size="sm" c="dimmed">· {preview.source === 'sample' ? t('reports.preview.sample') : t('reports.preview.latestRun')}</Text>
          {preview.run_id && <Anchor component={Link} to={`/runs/${preview.run_id}`} size="sm">{t('reports.openRun')}</Anchor>}
        </Group>
        {preview.recipients.length > 0 && <Text size="sm">{t('reports.preview.recipients', { to: preview.recipients.join(', ') })}</Text>}
        <div>
          <Text size="xs" c="dimmed">{t('reports.preview.subject')}</Text>
          <Text size="sm" fw={500} data-testid="preview-subject">{preview.subject}</Text>
        </div>
        <div>
          <Text size="xs" c="dimmed">{t('reports.preview.body')}</Text>
          <Code block data-testid="preview-body" style={{ whiteSpace: 'pre-wrap' }}>{preview.body}</Code>
        </div>
        {table && (
          <Table.ScrollContainer minWidth={300}>
            <Table withTableBorder withColumnBorders fz="xs" aria-label={t('reports.preview.table')}>
              <Table.Thead><Table.Tr>{table.columns.map((c) => <Table.Th key={c}>{c}</Table.Th>)}</Table.Tr></Table.Thead>
              <Table.Tbody>
                {table.rows.map((row, i) => (
                  <Table.Tr key={i}>{row.map((v, j) => <Table.Td key={table.columns[j] ?? j}>{cell(v)}</Table.Td>)}</Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {table.total_rows > table.rows.length && <Text size="xs" c="dimmed">{t('reports.preview.moreRows', { n: table.total_rows - table.rows.length })}</Text>}
          </Table.ScrollContainer>
        )}
        {preview.attachment && <Text size="sm">{t('reports.preview.attachment', { name: preview.attachment.filename })}</Text>}
        {preview.link && (
          <Text size="sm">{t('reports.preview.link')} <Code>{preview.link.url}</Code> · <Time value={preview.link.expires_at} style="short" /></Text>
        )}
      </Stack>
    </Paper>
  );
}
