/** The loading and error states of one query, so a section renders only with its data. */
import type { ReactNode } from 'react';
import { Center, Loader } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ProblemAlert } from './ProblemAlert';
import { useT } from '../i18n';

export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  const t = useT();
  if (query.isPending) return <Center p="md"><Loader size="sm" aria-label={t('app.loading')} /></Center>;
  if (query.isError) return <ProblemAlert error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
