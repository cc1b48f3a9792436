/**
 * The discovery test of single sign-on: reads the provider's discovery document for the issuer in
 * the form (or the saved one) and shows what it announces, or the provider's own error as the
 * server reported it (the problem's detail).
 */
import { Alert, Button, Code, List, Stack, Text } from '@mantine/core';
import { HeraldError } from '@herald/sdk';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useTestOidcSettings } from '../hooks';

export function SsoTest({ issuerUrl }: { issuerUrl: string | null }) {
  const t = useT();
  const test = useTestOidcSettings();
  const failed = test.error instanceof HeraldError && test.error.code === 'oidc.discovery_failed' ? test.error : undefined;
  return (
    <Stack gap="xs">
      <div>
        <Button variant="default" loading={test.isPending} onClick={() => test.mutate(issuerUrl)}>{t('settings.sso.test')}</Button>
      </div>
      {test.isSuccess && (
        <Alert color="green" role="status" title={t('settings.sso.testOk', { duration: formatDuration(test.data.elapsed_ms) })}>
          <List size="sm" spacing={2}>
            <List.Item>{t('settings.sso.issuer')}: <Code>{test.data.issuer}</Code></List.Item>
            <List.Item>{t('settings.sso.authorizationEndpoint')}: <Code>{test.data.authorization_endpoint}</Code></List.Item>
            <List.Item>{t('settings.sso.tokenEndpoint')}: <Code>{test.data.token_endpoint}</Code></List.Item>
            <List.Item>{t('settings.sso.jwksUri')}: <Code>{test.data.jwks_uri}</Code></List.Item>
            {test.data.userinfo_endpoint && <List.Item>{t('settings.sso.userinfoEndpoint')}: <Code>{test.data.userinfo_endpoint}</Code></List.Item>}
            <List.Item>{t('settings.sso.scopesSupported')}: {test.data.scopes_supported.join(', ') || '—'}</List.Item>
          </List>
        </Alert>
      )}
      {failed && (
        <Alert color="red" role="alert" title={t('settings.sso.testFailed')}>
          <Text size="sm">{failed.detail ?? failed.title}</Text>
          {failed.requestId && <Text size="xs" c="dimmed" mt={4}>{t('app.requestId', { id: failed.requestId })}</Text>}
        </Alert>
      )}
      {test.isError && !failed && <ProblemAlert error={test.error} />}
    </Stack>
  );
}
