/**
 * What a connection test answered: the server's version and round trip, or why it failed with the
 * database's own words (the problem's detail: "password authentication failed for user …",
 * "database … does not exist"), which is what a person needs to fix the settings.
 */
import { Alert, Text } from '@mantine/core';
import { HeraldError } from '../../../api/client';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import type { Schemas } from '@herald/sdk';

const TITLES: Record<string, string> = {
  'connection.auth_failed': 'connections.test.auth_failed',
  'connection.unreachable': 'connections.test.unreachable',
  'validation.failed': 'connections.test.invalid',
};

export function TestResult({ result, error }: { result: Schemas['ConnectionTestResult'] | undefined; error: unknown }) {
  const t = useT();
  if (error) {
    const problem = error instanceof HeraldError ? error : undefined;
    const title = t(TITLES[problem?.code ?? ''] ?? 'connections.test.failed');
    const said = problem ? problem.detail ?? problem.title : error instanceof Error ? error.message : String(error);
    return (
      <Alert color="red" role="alert" title={title}>
        {problem?.code !== 'validation.failed' && <Text size="sm" fw={500}>{t('connections.test.databaseSays')}</Text>}
        <Text size="sm" data-testid="test-message" style={{ overflowWrap: 'anywhere' }}>{said}</Text>
        {problem?.errors.length ? (
          <ul>{problem.errors.map((f) => <li key={f.field}><Text size="sm">{f.field}: {f.message ?? f.code}</Text></li>)}</ul>
        ) : null}
        {problem?.requestId && <Text size="xs" c="dimmed" mt="xs">{t('app.requestId', { id: problem.requestId })}</Text>}
      </Alert>
    );
  }
  if (!result) return null;
  return (
    <Alert color="green" role="status" title={t('connections.test.ok')}>
      <Text size="sm">{t('connections.test.okText', { version: result.server_version, ms: formatDuration(result.round_trip_ms) })}</Text>
    </Alert>
  );
}
