/**
 * The result file in each format the contract offers (GET /runs/{id}/result?format=…), as plain
 * links: the browser streams the file to disk with the session's cookie, whatever its size.
 */
import { useState } from 'react';
import { Button, Checkbox, Group, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useT } from '../../../i18n';
import { Section } from './Section';

export const RESULT_FORMATS: readonly Schemas['ResultFormat'][] = ['csv', 'xlsx', 'json'];

export function resultUrl(runId: string, format: Schemas['ResultFormat'], formulaSafe = false): string {
  const query = new URLSearchParams({ format });
  if (format === 'csv' && formulaSafe) query.set('formula_safe', 'true');
  return `/api/v1/runs/${encodeURIComponent(runId)}/result?${query}`;
}

export function RunDownloads({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const [safe, setSafe] = useState(false);
  return (
    <Section title={t('runs.result')}>
      {run.has_result ? (
        <Group gap="sm" align="center">
          {RESULT_FORMATS.map((format) => (
            <Button key={format} component="a" href={resultUrl(run.id, format, safe)} download variant="light">
              {t('runs.download', { format: format.toUpperCase() })}
            </Button>
          ))}
          <Checkbox label={t('runs.formulaSafe')} description={t('runs.formulaSafeHint')} checked={safe}
            onChange={(e) => setSafe(e.currentTarget.checked)} />
        </Group>
      ) : (
        <Text size="sm" c="dimmed">{run.status === 'pending' || run.status === 'running' ? t('runs.resultPending') : t('runs.resultNone')}</Text>
      )}
    </Section>
  );
}
