/** Export: the kinds (or the resources chosen in the list below), with what they refer to, downloaded as YAML. */
import { useState } from 'react';
import { Button, Checkbox, Group, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useExport } from '../hooks';
import { canExport, CONFIG_KINDS, exportBody, type ConfigKind } from '../utils/exportBody';

export function ExportPanel({ chosen, onClear }: { chosen: string[]; onClear: () => void }) {
  const t = useT();
  const [kinds, setKinds] = useState<ConfigKind[]>(CONFIG_KINDS);
  const [withDependencies, setWithDependencies] = useState(true);
  const download = useExport();
  const choice = { kinds, ids: chosen, includeDependencies: withDependencies };
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">{t('config.export.title')}</Title>
        <Text size="sm" c="dimmed">{t('config.export.intro')}</Text>
        {chosen.length === 0 ? (
          <Checkbox.Group label={t('config.export.kinds')} value={kinds} onChange={(v) => setKinds(v as ConfigKind[])}>
            <Group mt={4}>{CONFIG_KINDS.map((k) => <Checkbox key={k} value={k} label={t(`config.kinds.${k}`)} />)}</Group>
          </Checkbox.Group>
        ) : (
          <Group gap="xs">
            <Text size="sm" fw={500}>{t('config.export.chosen', { count: chosen.length })}</Text>
            <Button size="compact-sm" variant="subtle" onClick={onClear}>{t('config.export.clear')}</Button>
          </Group>
        )}
        <Switch label={t('config.export.dependencies')} description={t('config.export.dependenciesHelp')} checked={withDependencies}
          onChange={(e) => setWithDependencies(e.currentTarget.checked)} />
        {download.isError && <ProblemAlert error={download.error} />}
        <Group>
          <Button disabled={!canExport(choice)} loading={download.isPending} onClick={() => download.mutate(exportBody(choice))}>
            {t('config.export.download')}
          </Button>
          {download.isSuccess && <Text size="sm" role="status">{t('config.export.downloaded', { name: download.data })}</Text>}
        </Group>
      </Stack>
    </Paper>
  );
}
