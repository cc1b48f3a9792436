/** Ten recovery codes, shown once: to copy, download or write down. */
import { Alert, Button, Code, CopyButton, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useT } from '../../../i18n';

function download(codes: string[], title: string) {
  const blob = new Blob([`${title}\n\n${codes.join('\n')}\n`], { type: 'text/plain' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = 'herald-recovery-codes.txt';
  a.click();
  URL.revokeObjectURL(url);
}

export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const t = useT();
  return (
    <Stack>
      <Alert color="yellow" role="status" title={t('profile.codes.title')}>{t('profile.codes.intro')}</Alert>
      <SimpleGrid component="ul" aria-label={t('profile.codes.list')} cols={2} spacing="xs" m={0} p={0} style={{ listStyle: 'none' }}>
        {codes.map((c) => <li key={c}><Code fz="sm">{c}</Code></li>)}
      </SimpleGrid>
      <Group>
        <CopyButton value={codes.join('\n')}>
          {({ copied, copy }) => <Button variant="default" onClick={copy}>{copied ? t('profile.codes.copied') : t('profile.codes.copy')}</Button>}
        </CopyButton>
        <Button variant="default" onClick={() => download(codes, t('profile.codes.fileTitle'))}>{t('profile.codes.download')}</Button>
        <Button onClick={onDone}>{t('profile.codes.saved')}</Button>
      </Group>
      <Text size="xs" c="dimmed">{t('profile.codes.once')}</Text>
    </Stack>
  );
}
