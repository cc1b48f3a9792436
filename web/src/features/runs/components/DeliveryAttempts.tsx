/**
 * The run's delivery attempts in order: channel, status, requests made, the peer's answer, the
 * next automatic retry, the history of every request, and a retry button for a failed one.
 */
import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useCan } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useRetryAttempt } from '../hooks';
import { AttemptHistory } from './AttemptHistory';
import { Section } from './Section';

function Attempt({ runId, attempt }: { runId: string; attempt: Schemas['DeliveryAttempt'] }) {
  const t = useT();
  const canRetry = useCan('editor');
  const retry = useRetryAttempt(runId);
  const label = t('runs.attempt.label', { position: attempt.position, channel: attempt.channel_name });
  return (
    <Card withBorder padding="sm" component="article" aria-label={label}>
      <Group justify="space-between" wrap="wrap" mb="xs">
        <Group gap="xs">
          <Text fw={600}>{label}</Text>
          <Text size="sm" c="dimmed">{attempt.channel_type}</Text>
          <StatusBadge status={attempt.status} />
        </Group>
        {canRetry && attempt.status === 'failed' && (
          <Button size="xs" variant="light" loading={retry.isPending} onClick={() => retry.mutate(attempt.id)}
            aria-label={t('runs.attempt.retryLabel', { channel: attempt.channel_name })}>
            {t('runs.attempt.retry')}
          </Button>
        )}
      </Group>
      <Stack gap={4}>
        <Text size="sm">
          {t('runs.attempt.sends', { count: attempt.sends })}
          {attempt.status_code !== null && ` · ${t('runs.attempt.lastCode', { code: attempt.status_code })}`}
          {attempt.finished_at && <> · <Time value={attempt.finished_at} /></>}
        </Text>
        {attempt.error && (
          <Text size="sm" c="red.8"><Text span ff="monospace">{attempt.error.code}</Text>: {attempt.error.message}</Text>
        )}
        {attempt.next_retry_at && attempt.status === 'failed' && (
          <Text size="sm">{t('runs.attempt.nextRetry')} <Time value={attempt.next_retry_at} /></Text>
        )}
        {attempt.detail && <Text size="sm" c="dimmed">{attempt.detail}</Text>}
        {retry.isError && <ProblemAlert error={retry.error} />}
        <details>
          <summary><Text span size="sm">{t('runs.attempt.history', { count: attempt.history.length })}</Text></summary>
          <AttemptHistory attempt={attempt} />
        </details>
      </Stack>
    </Card>
  );
}

export function DeliveryAttempts({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const attempts = run.delivery_attempts;
  return (
    <Section title={t('runs.deliveries')}>
      {attempts.length === 0 ? (
        <Text size="sm" c="dimmed">
          {!run.deliver ? t('runs.deliveriesOff') : run.status === 'pending' || run.status === 'running' ? t('runs.deliveriesPending') : t('runs.deliveriesNone')}
        </Text>
      ) : (
        <Stack gap="sm">
          {attempts.map((a) => <Attempt key={a.id} runId={run.id} attempt={a} />)}
          {attempts.some((a) => a.status === 'preview') && <Alert color="blue">{t('runs.attempt.previewNote')}</Alert>}
        </Stack>
      )}
    </Section>
  );
}
