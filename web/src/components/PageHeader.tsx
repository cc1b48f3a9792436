import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';
import { useEffect } from 'react';

/** The page's one h1 (also the document title) and its actions. */
export function PageHeader({ title, actions }: { title: string; actions?: ReactNode }) {
  useEffect(() => { document.title = `${title} · Herald`; }, [title]);
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Title order={1} size="h2">{title}</Title>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}
