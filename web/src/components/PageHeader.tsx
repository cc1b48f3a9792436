import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';
import { useEffect } from 'react';

/** The page's one h1 (also the document title), a badge beside it (managed by configuration), and its actions. */
export function PageHeader({ title, badge, actions }: { title: string; badge?: ReactNode; actions?: ReactNode }) {
  useEffect(() => { document.title = `${title} · Herald`; }, [title]);
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      {badge ? (
        <Group gap="sm" wrap="wrap"><Title order={1} size="h2">{title}</Title>{badge}</Group>
      ) : <Title order={1} size="h2">{title}</Title>}
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}
