/**
 * The frame of a page for a least role (the admin pages): a person below it sees the page's
 * title and that there is nothing for them to do here, and the page's own queries never run
 * (so no request is refused). The API decides anyway; this only spares a dead end.
 */
import type { ReactNode } from 'react';
import { Button, Paper } from '@mantine/core';
import { Link } from 'react-router';
import { atLeast, useCurrentUser, type Role } from '../api/session';
import { useT } from '../i18n';
import { EmptyState } from './EmptyState';
import { PageHeader } from './PageHeader';

export function RequireRole({ min, title, children }: { min: Role; title: string; children: ReactNode }) {
  const me = useCurrentUser();
  const t = useT();
  if (atLeast(me.role, min)) return <>{children}</>;
  return (
    <>
      <PageHeader title={title} />
      <Paper withBorder p="md">
        <EmptyState title={t('app.roleNeeded', { role: t(`app.role.${min}`) })}>
          <Button component={Link} to="/" variant="light">{t('nav.dashboard')}</Button>
        </EmptyState>
      </Paper>
    </>
  );
}
