/** This instance: name, version, the latest release when known, since when it runs and its roles (GET /system/about). */
import { Anchor, Stack, Table } from '@mantine/core';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useAbout } from '../hooks';
import { SectionTitle } from './SaveFeedback';

export function AboutSection() {
  const t = useT();
  const query = useAbout();
  return (
    <Stack gap="md" maw={760}>
      <SectionTitle title={t('settings.about.title')} />
      <QueryState query={query}>
        {(a) => (
          <Table variant="vertical" layout="fixed" withTableBorder>
            <Table.Tbody>
              <Table.Tr><Table.Th w={220}>{t('settings.about.name')}</Table.Th><Table.Td>{a.name}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th>{t('settings.about.version')}</Table.Th><Table.Td>{a.version}</Table.Td></Table.Tr>
              <Table.Tr>
                <Table.Th>{t('settings.about.latest')}</Table.Th>
                <Table.Td>{a.latest_release ? a.latest_release.version : t('settings.about.latestUnknown')}</Table.Td>
              </Table.Tr>
              <Table.Tr><Table.Th>{t('settings.about.startedAt')}</Table.Th><Table.Td><Time value={a.started_at} /></Table.Td></Table.Tr>
              <Table.Tr><Table.Th>{t('settings.about.roles')}</Table.Th><Table.Td>{a.roles.join(', ')}</Table.Td></Table.Tr>
              <Table.Tr>
                <Table.Th>{t('settings.about.api')}</Table.Th>
                <Table.Td>
                  <Anchor href="/docs">{t('settings.about.docs')}</Anchor>{' · '}
                  <Anchor href="/api/v1/openapi.yaml">openapi.yaml</Anchor>
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        )}
      </QueryState>
    </Stack>
  );
}
