/**
 * An error from the API as a person reads it: the code's text in their language (else the
 * problem's title and detail), the request id to quote, and a retry when one is offered.
 */
import { Alert, Button, Group, Text } from '@mantine/core';
import { HeraldError } from '@herald/sdk';
import { useT, type Translate } from '../i18n';

export function problemMessage(error: unknown, t: Translate): string {
  if (error instanceof HeraldError) {
    const key = `problem.${error.code}`;
    const text = t(key);
    if (text !== key) return text;
    return error.detail ? `${error.title}: ${error.detail}` : error.title;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Per-field messages of a validation problem, keyed by field path (`schedule.cron`). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (error instanceof HeraldError) for (const e of error.errors) out[e.field] = e.message ?? e.code;
  return out;
}

export function ProblemAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const t = useT();
  if (!error) return null;
  const requestId = error instanceof HeraldError ? error.requestId : undefined;
  const fields = error instanceof HeraldError ? error.errors : [];
  return (
    <Alert color="red" title={t('app.error')} role="alert">
      <Text size="sm">{problemMessage(error, t)}</Text>
      {fields.length > 0 && (
        <ul>{fields.map((f) => <li key={f.field}><Text size="sm">{f.field}: {f.message ?? f.code}</Text></li>)}</ul>
      )}
      <Group justify="space-between" mt="xs">
        {requestId ? <Text size="xs" c="dimmed">{t('app.requestId', { id: requestId })}</Text> : <span />}
        {onRetry && <Button size="xs" variant="light" onClick={onRetry}>{t('app.retry')}</Button>}
      </Group>
    </Alert>
  );
}
