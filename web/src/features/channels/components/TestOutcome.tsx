/**
 * What a test message came to: the receiver's acceptance (its status code, message id, where an
 * email went, how long it took) or the send's problem with the receiver's own answer (the
 * problem's detail) and its code. Announced to screen readers (status / alert).
 */
import { Alert, Text } from '@mantine/core';
import { HeraldError } from '../../../api/client';
import { formatDuration } from '../../../components/Time';
import { ProblemAlert, problemMessage } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import type { TestResult } from '../hooks';

export function TestOutcome({ result, error }: { result?: TestResult | undefined; error?: unknown }) {
  const t = useT();
  if (error) {
    // A problem with per-field errors belongs on the form's fields; this shows the rest.
    if (!(error instanceof HeraldError) || error.errors.length > 0 || error.status >= 500) return <ProblemAlert error={error} />;
    const message = problemMessage(error, t);
    return (
      <Alert color="red" role="alert" title={t('channels.test.failed')}>
        <Text size="sm">{message}</Text>
        {error.detail && !message.includes(error.detail) && <Text size="sm">{error.detail}</Text>}
        <Text size="xs" c="dimmed" mt={4}>{t('channels.test.code')} <Text span ff="monospace" size="xs">{error.code}</Text>
          {error.requestId && <> · {t('app.requestId', { id: error.requestId })}</>}</Text>
      </Alert>
    );
  }
  if (!result) return null;
  const parts = [
    result.status_code !== null ? t('channels.test.statusCode', { code: result.status_code }) : null,
    t('channels.test.elapsed', { time: formatDuration(result.elapsed_ms) }),
    result.peer_message_id ? t('channels.test.messageId', { id: result.peer_message_id }) : null,
  ].filter(Boolean);
  return (
    <Alert color="green" role="status" title={result.sent_to ? t('channels.test.sentTo', { address: result.sent_to }) : t('channels.test.sent')}>
      <Text size="sm">{parts.join(' · ')}</Text>
      {result.detail && <Text size="sm">{result.detail}</Text>}
    </Alert>
  );
}
