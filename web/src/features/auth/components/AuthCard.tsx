import type { ReactNode } from 'react';
import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';

/** The frame of the pages without the app's shell: one card in the middle. */
export function AuthCard({ title, intro, width = 420, children }: { title: string; intro?: ReactNode; width?: number; children: ReactNode }) {
  useEffect(() => { document.title = `${title} · Herald`; }, [title]);
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w={width} maw="100%">
        <Stack>
          <Title order={1} size="h3">{title}</Title>
          {intro && <Text size="sm" c="dimmed">{intro}</Text>}
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
