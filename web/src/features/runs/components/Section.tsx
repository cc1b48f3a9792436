/** One titled section of a page (an h2 and a framed body). */
import type { ReactNode } from 'react';
import { Group, Paper, Title } from '@mantine/core';

export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h4">{title}</Title>
        {actions}
      </Group>
      {children}
    </Paper>
  );
}
