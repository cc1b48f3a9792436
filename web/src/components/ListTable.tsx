/**
 * A list page's table: its column headers, the rows the page draws, scrolling sideways on narrow
 * screens; and "Load more" under it for a paged (infinite) list.
 */
import type { ReactNode } from 'react';
import { Button, Center, Table } from '@mantine/core';
import { useT } from '../i18n';

export function ListTable({ label, columns, children, minWidth = 640 }: { label: string; columns: string[]; children: ReactNode; minWidth?: number }) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table highlightOnHover aria-label={label}>
        <Table.Thead>
          <Table.Tr>{columns.map((c) => <Table.Th key={c}>{c}</Table.Th>)}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function LoadMore({ list }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  const t = useT();
  if (!list.hasNextPage) return null;
  return (
    <Center mt="md">
      <Button variant="light" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>{t('app.loadMore')}</Button>
    </Center>
  );
}
