/** The loading and error states of one query, so a section renders only with its data. */
import type { ReactNode } from 'react';
import { Center } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { ProblemAlert } from './ProblemAlert';
import { Loading } from './Loading';

export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Center p="md"><Loading size="sm" /></Center>;
  if (query.isError) return <ProblemAlert error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
