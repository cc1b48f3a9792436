/**
 * "Retry failed": resends the channel's failed attempts of the last 7 days (POST
 * /channels/{id}/retry-failed) and shows what was queued, each attempt with its run (a link), its
 * position and the error it had; or that there was nothing to resend.
 */
import { Alert, Anchor, Button, List, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useRetryFailed } from '../hooks';
import { queuedByRun } from '../utils/channelForm';

export function RetryFailed({ channelId, channelName }: { channelId: string; channelName: string }) {
  const t = useT();
  const retry = useRetryFailed(channelId);
  const groups = queuedByRun(retry.data?.queued ?? []);
  return (
    <Stack gap="xs">
      <div>
        <Button variant="default" loading={retry.isPending} onClick={() => retry.mutate()}
          aria-label={t('channels.retry.named', { name: channelName })}>
          {t('channels.retry')}
        </Button>
        <Text size="xs" c="dimmed" mt={4}>{t('channels.retry.help')}</Text>
      </div>
      {retry.isError && <ProblemAlert error={retry.error} />}
      {retry.isSuccess && (
        <Alert color={retry.data.queued.length > 0 ? 'blue' : 'gray'} role="status"
          title={retry.data.queued.length > 0 ? t(retry.data.queued.length === 1 ? 'channels.retry.queuedOne' : 'channels.retry.queued', { count: retry.data.queued.length }) : t('channels.retry.none')}>
          {groups.length > 0 && (
            <List size="sm" aria-label={t('channels.retry.list')}>
              {groups.flatMap((g) => g.attempts.map((a) => (
                <List.Item key={a.id}>
                  <Anchor component={Link} to={`/runs/${g.runId}`} size="sm">{t('channels.retry.run', { position: a.position })}</Anchor>
                  {a.finished_at && <> · <Time value={a.finished_at} style="short" /></>}
                  {a.error && <> · <Text span ff="monospace" size="sm">{a.error.code}</Text>: {a.error.message}</>}
                </List.Item>
              )))}
            </List>
          )}
        </Alert>
      )}
    </Stack>
  );
}
