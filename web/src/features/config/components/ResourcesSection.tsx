/**
 * The resources configuration as code covers, by kind: choose some to export, and see which ones
 * an import or the configuration directory manages (with Detach and Attach).
 */
import { useState } from 'react';
import { Checkbox, SegmentedControl, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { EmptyState } from '../../../components/EmptyState';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useManagement, useResources, type ResourceRow } from '../hooks';
import { CONFIG_KINDS, type ConfigKind } from '../utils/exportBody';
import { ExportPanel } from './ExportPanel';
import { ManagedBadge } from './ManagedBadge';
import { Loading } from '../../../components/Loading';

export function ResourcesSection() {
  const t = useT();
  const [kind, setKind] = useState<ConfigKind>('connection');
  const [chosen, setChosen] = useState<string[]>([]);
  const resources = useResources(kind);
  const toggle = (id: string, on: boolean) => setChosen((c) => (on ? [...c, id] : c.filter((x) => x !== id)));
  return (
    <Stack gap="lg">
      <ExportPanel chosen={chosen} onClear={() => setChosen([])} />
      <Stack gap="sm">
        <Title order={2} size="h4" id="resources-title">{t('config.resources.title')}</Title>
        <SegmentedControl value={kind} onChange={(v) => setKind(v as ConfigKind)} aria-label={t('config.resources.kind')}
          data={CONFIG_KINDS.map((k) => ({ value: k, label: t(`config.kinds.${k}`) }))} style={{ alignSelf: 'flex-start' }} />
        <QueryState query={resources}>
          {(rows) => rows.length === 0 ? <EmptyState title={t(`config.resources.none.${kind}`)} /> : (
            <Table.ScrollContainer minWidth={620}>
              <Table aria-labelledby="resources-title" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={40}><VisuallyHidden>{t('config.resources.choose')}</VisuallyHidden></Table.Th>
                    <Table.Th>{t('config.resources.name')}</Table.Th>
                    <Table.Th>{t('config.resources.key')}</Table.Th>
                    <Table.Th>{t('config.resources.managed')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((r) => <ResourceLine key={r.id} row={r} chosen={chosen.includes(r.id)} onChoose={(on) => toggle(r.id, on)} />)}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryState>
      </Stack>
    </Stack>
  );
}

function ResourceLine({ row, chosen, onChoose }: { row: ResourceRow; chosen: boolean; onChoose: (on: boolean) => void }) {
  const t = useT();
  const managed = useManagement(row.kind, row.id);
  return (
    <Table.Tr>
      <Table.Td>
        <Checkbox aria-label={t('config.resources.chooseNamed', { name: row.name })} checked={chosen} onChange={(e) => onChoose(e.currentTarget.checked)} />
      </Table.Td>
      <Table.Td>{row.name}</Table.Td>
      <Table.Td><Text size="sm" ff="monospace">{row.key}</Text></Table.Td>
      <Table.Td>
        {managed.isPending ? <Loading size="xs" />
          : managed.data ? <ManagedBadge kind={row.kind} id={row.id} name={row.name} managed={managed.data} actions />
            : <Text size="sm">{t('config.resources.notManaged')}</Text>}
      </Table.Td>
    </Table.Tr>
  );
}
