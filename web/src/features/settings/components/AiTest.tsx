/** Tries the AI settings as typed (POST /settings/ai/test): the model that answered and how long it took, or the provider's error. */
import { Alert, Button, Stack, Text } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useTestAiSettings } from '../hooks';
import { textOrNull } from '../utils/format';
import { secretToSend } from '../utils/secret';
import type { AiDraft } from './AiSection';

export function AiTest({ draft, stored }: { draft: AiDraft; stored: boolean }) {
  const t = useT();
  const test = useTestAiSettings();
  const run = () => {
    const key = secretToSend(stored, draft.api_key);
    const model = textOrNull(draft.model);
    const baseUrl = textOrNull(draft.base_url);
    test.mutate({
      provider: draft.provider,
      ...(model ? { model } : {}),
      ...(baseUrl ? { base_url: baseUrl } : {}),
      ...(key === undefined ? {} : { api_key: key }),
      timeout_seconds: draft.timeout_seconds,
      max_tokens: draft.max_tokens,
    });
  };
  const result = test.data;
  return (
    <Stack gap="xs">
      <div><Button variant="default" loading={test.isPending} onClick={run}>{t('settings.ai.test')}</Button></div>
      {result?.ok && (
        <Alert color="green" role="status" title={t('settings.ai.testOk')}>
          <Text size="sm">{t('settings.ai.testOkDetail', { model: result.model ?? '—', duration: formatDuration(result.elapsed_ms) })}</Text>
        </Alert>
      )}
      {result && !result.ok && (
        <Alert color="red" role="alert" title={t('settings.ai.testFailed')}>
          <Text size="sm">{result.error ? `${result.error.message} (${result.error.code})` : '—'}</Text>
        </Alert>
      )}
      {test.isError && <ProblemAlert error={test.error} />}
    </Stack>
  );
}
