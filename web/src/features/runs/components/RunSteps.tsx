/** The run's steps in order, with their status, duration, what they added, and their error. */
import { Table, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { StatusBadge } from '../../../components/StatusBadge';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import { stepDetail, stepDuration } from '../utils/describe';
import { Section } from './Section';

export function RunSteps({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  return (
    <Section title={t('runs.steps')}>
      {run.steps.length === 0 ? <Text size="sm" c="dimmed">{t('runs.stepsNone')}</Text> : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('runs.step.name')}</Table.Th>
              <Table.Th scope="col">{t('runs.col.status')}</Table.Th>
              <Table.Th scope="col">{t('runs.col.duration')}</Table.Th>
              <Table.Th scope="col">{t('runs.step.detail')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {run.steps.map((step) => (
              <Table.Tr key={step.name}>
                <Table.Th scope="row" fw={500}>{t(`runs.step.${step.name}`)}</Table.Th>
                <Table.Td><StatusBadge status={step.status} /></Table.Td>
                <Table.Td>{step.finished_at ? formatDuration(stepDuration(step)) : t('runs.step.inProgress')}</Table.Td>
                <Table.Td>
                  <Text size="sm">{stepDetail(step, t).join(' · ')}</Text>
                  {step.error && <Text size="sm" c="red.8"><Text span ff="monospace">{step.error.code}</Text>: {step.error.message}</Text>}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Section>
  );
}
