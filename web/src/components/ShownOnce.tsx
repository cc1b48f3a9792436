/**
 * A secret the API answers once (a temporary password, an API key's token): shown in full in a
 * read-only field (labelled, selectable) with a Copy button and the warning that it will not be
 * shown again. It lives only in the caller's mutation result, never in the query cache.
 */
import { Alert, Button, CopyButton, Group, Stack, Text, TextInput } from '@mantine/core';
import { useT } from '../i18n';

export function ShownOnce({ label, value, note }: { label: string; value: string; note?: string }) {
  const t = useT();
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="nowrap" align="flex-end">
        <TextInput label={label} value={value} readOnly style={{ flex: 1 }} spellCheck={false} autoComplete="off"
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value} timeout={3000}>
          {({ copied, copy }) => (
            <Button variant={copied ? 'filled' : 'light'} color={copied ? 'teal.9' : undefined} onClick={copy}
              aria-label={copied ? t('app.copied') : t('app.copyNamed', { name: label })}>
              {copied ? t('app.copied') : t('app.copy')}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Alert color="yellow" variant="light" p="xs">
        <Text size="sm">{note ?? t('app.shownOnce')}</Text>
      </Alert>
    </Stack>
  );
}
