/** The report's condition as the run checked it, and its outcome. */
import { Group, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useT } from '../../../i18n';
import { describeCondition } from '../utils/describe';
import { Section } from './Section';

export function RunCondition({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const outcome = !run.condition ? null
    : run.condition_met === null ? t('runs.condition.unchecked')
      : run.condition_met ? t('runs.condition.met') : t('runs.condition.notMet');
  return (
    <Section title={t('runs.condition')}>
      <Group gap="xs">
        <Text size="sm">{describeCondition(run.condition, t)}</Text>
        {outcome && <Text size="sm" fw={600}>→ {outcome}</Text>}
      </Group>
    </Section>
  );
}
