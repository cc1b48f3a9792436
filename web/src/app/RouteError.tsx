import { Button, Container, Stack, Text, Title } from '@mantine/core';
import { Link, useRouteError } from 'react-router';
import { ProblemAlert } from '../components/ProblemAlert';
import { useT } from '../i18n';

/** A page that threw: what happened, and a way back. */
export function RouteError() {
  const error = useRouteError();
  const t = useT();
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Title order={1} size="h2">{t('app.error')}</Title>
        <ProblemAlert error={error} />
        <Button component={Link} to="/" variant="light">{t('nav.dashboard')}</Button>
      </Stack>
    </Container>
  );
}

export function NotFound() {
  const t = useT();
  return (
    <Stack>
      <Title order={1} size="h2">404</Title>
      <Text>{t('app.notFound')}</Text>
    </Stack>
  );
}
