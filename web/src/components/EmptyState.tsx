import type { ReactNode } from 'react';
import { Stack, Text } from '@mantine/core';

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" gap="xs" p="xl">
      <Text fw={600}>{title}</Text>
      {children}
    </Stack>
  );
}
