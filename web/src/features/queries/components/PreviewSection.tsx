/**
 * Preview: the editor's SQL (saved or not) run read-only on the chosen connection with the
 * parameter values typed here (else their defaults) and a row cap, answered as a table of at most
 * that many rows, with whether the result had more.
 */
import { useState } from 'react';
import { Badge, Button, Group, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { fieldErrors, ProblemAlert } from '../../../components/ProblemAlert';
import { formatDuration } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { usePreview, type Preview } from '../hooks';
import { previewValues, type QueryDraft } from '../utils/draft';
import { ResultTable } from './ResultTable';
import { ValueInput } from './ValueInput';

const CAPS = ['100', '500', '1000', '5000'];

/**
 * `initial`: a preview made before the query's first save (carried to its new page), shown until
 * the next one. `onResult` hears each preview, so the editor can carry it.
 */
export function PreviewSection({ draft, initial, onResult }: { draft: QueryDraft; initial?: Preview | undefined; onResult?: (r: Preview) => void }) {
  const { t, locale } = useI18n();
  const [values, setValues] = useState<Record<string, string>>({});
  const [cap, setCap] = useState('500');
  const preview = usePreview();
  const errors = fieldErrors(preview.error);
  const declared = draft.parameters.filter((p) => p.name.trim() !== '');
  const number = (n: number) => n.toLocaleString(locale);
  const run = () => preview.mutate({
    connection_id: draft.connectionId!,
    sql: draft.sql,
    parameters: previewValues(declared, values),
    limit: Number(cap),
  }, { onSuccess: (r) => onResult?.(r) });
  const result = preview.data ?? (preview.isIdle ? initial : undefined);
  return (
    <section aria-labelledby="query-preview">
      <Title order={2} size="h4" id="query-preview" mb="xs">{t('queries.preview')}</Title>
      <Stack gap="sm">
        {declared.length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm">
            {declared.map((p) => {
              const name = p.name.trim();
              return (
                <ValueInput key={p.key} label={t('queries.valueOf', { name })} type={p.type} description={t(`queries.type.${p.type}`)}
                  value={values[name] ?? p.default} error={errors[`parameters.${name}`]}
                  onChange={(v) => setValues((all) => ({ ...all, [name]: v }))} />
              );
            })}
          </SimpleGrid>
        )}
        <Group align="flex-end" gap="sm">
          <Select label={t('queries.rowCap')} data={CAPS.map((c) => ({ value: c, label: number(Number(c)) }))} value={cap}
            allowDeselect={false} onChange={(v) => v && setCap(v)} w={140} />
          <Button onClick={run} loading={preview.isPending} disabled={draft.connectionId === null || draft.sql.trim() === ''}>
            {t('queries.runPreview')}
          </Button>
        </Group>
        {preview.isError && <ProblemAlert error={preview.error} />}
        {result && !preview.isPending && (
          <>
            <Group gap="xs" role="status">
              <Text size="sm">{t('queries.previewRows', { count: number(result.row_count), time: formatDuration(result.elapsed_ms) })}</Text>
              {result.truncated
                ? <Badge color="orange" variant="dot" tt="none">{t('queries.truncated', { cap: number(Number(cap)) })}</Badge>
                : <Badge color="gray" variant="dot" tt="none">{t('queries.complete')}</Badge>}
            </Group>
            <ResultTable preview={result} />
          </>
        )}
      </Stack>
    </section>
  );
}
