/** /runs: every run, newest first, filtered by the query string, loading more as it scrolls. */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { InfiniteSentinel } from '../../../components/InfiniteSentinel';
import { RunFiltersBar } from '../components/RunFiltersBar';
import { RunsTable } from '../components/RunsTable';
import { useReportTitles, useRuns } from '../hooks';
import { filtersFromSearch } from '../utils/filters';

export function RunsPage() {
  const t = useT();
  const [params] = useSearchParams();
  const filters = filtersFromSearch(params);
  const runs = useRuns(filters);
  const titles = useReportTitles();
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = runs;
  const more = useCallback(() => { if (hasNextPage && !isFetchingNextPage) void fetchNextPage(); }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <>
      <PageHeader title={t('runs.title')} />
      <RunFiltersBar />
      <QueryState query={runs}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <EmptyState title={t(Object.keys(filters).length ? 'runs.emptyFiltered' : 'runs.empty')} />;
          return (
            <>
              <RunsTable runs={items} titles={titles.data} />
              {runs.isFetchNextPageError && <ProblemAlert error={runs.error} onRetry={more} />}
              <InfiniteSentinel hasNext={hasNextPage} loading={isFetchingNextPage} onMore={more} endText={t('runs.end', { count: items.length })} />
            </>
          );
        }}
      </QueryState>
    </>
  );
}
