/** /links: every shared link, newest first, filtered by status (in the query string). */
import { useCallback } from 'react';
import { SegmentedControl, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { InfiniteSentinel } from '../../../components/InfiniteSentinel';
import { PageHeader } from '../../../components/PageHeader';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { LinkItem } from '../components/LinkItem';
import { LINK_STATUSES, useLinks, type LinkStatus } from '../hooks';

export function LinksPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const raw = params.get('status');
  const status = (LINK_STATUSES as readonly string[]).includes(raw ?? '') ? raw as LinkStatus : undefined;
  const links = useLinks(status ? { status } : {});
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = links;
  const more = useCallback(() => { if (hasNextPage && !isFetchingNextPage) void fetchNextPage(); }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <>
      <PageHeader title={t('links.title')} />
      <Stack gap={4} mb="md">
        <Text size="sm" id="links-status-filter">{t('links.filter.status')}</Text>
        <SegmentedControl aria-labelledby="links-status-filter" w="fit-content"
          data={[{ value: '', label: t('links.filter.all') }, ...LINK_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))]}
          value={status ?? ''} onChange={(v) => setParams(v ? { status: v } : {}, { replace: true })} />
      </Stack>
      <QueryState query={links}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <EmptyState title={t('links.empty')}><Text size="sm" c="dimmed">{t('links.emptyHint')}</Text></EmptyState>;
          return (
            <Stack gap="xs">
              <div role="list" aria-label={t('links.title')}>
                <Stack gap="xs">{items.map((l) => <div role="listitem" key={l.id}><LinkItem link={l} showRun /></div>)}</Stack>
              </div>
              {links.isFetchNextPageError && <ProblemAlert error={links.error} onRetry={more} />}
              <InfiniteSentinel hasNext={hasNextPage} loading={isFetchingNextPage} onMore={more} />
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
