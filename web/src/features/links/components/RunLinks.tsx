/** A run's shared links: make one (editors), and the run's links with their logs and revoke. */
import { Stack, Text } from '@mantine/core';
import { useCan } from '../../../api/session';
import { InfiniteSentinel } from '../../../components/InfiniteSentinel';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useLinks } from '../hooks';
import { CreateLinkForm } from './CreateLinkForm';
import { LinkItem } from './LinkItem';

export function RunLinks({ runId, hasResult }: { runId: string; hasResult: boolean }) {
  const t = useT();
  const canShare = useCan('editor');
  const links = useLinks({ run_id: runId });
  return (
    <Stack gap="sm">
      {canShare && hasResult && <CreateLinkForm runId={runId} />}
      <QueryState query={links}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <Text size="sm" c="dimmed">{t('links.noneForRun')}</Text>;
          return (
            <Stack gap="xs" aria-label={t('links.ofRun')} role="list">
              {items.map((l) => <div role="listitem" key={l.id}><LinkItem link={l} /></div>)}
              {links.hasNextPage && (
                <InfiniteSentinel hasNext loading={links.isFetchingNextPage} onMore={() => void links.fetchNextPage()} />
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Stack>
  );
}
