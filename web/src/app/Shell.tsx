/** The signed-in frame: header (menu, bell, account), navigation by role, the page. */
import { Suspense } from 'react';
import { AppShell, Burger, Center, Group, Menu, NavLink, ScrollArea, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import { keys } from '../api/keys';
import { atLeast, useCurrentUser } from '../api/session';
import { useLiveEvents } from '../api/events';
import { useT } from '../i18n';
import { features, type NavItem } from './feature';
import { Loading } from '../components/Loading';

const navItems: NavItem[] = features.flatMap((f) => f.nav ?? []).sort((a, b) => a.order - b.order);
const headerParts = features.flatMap((f) => f.header ?? []).sort((a, b) => a.order - b.order);

function Navigation({ onNavigate }: { onNavigate: () => void }) {
  const me = useCurrentUser();
  const t = useT();
  const location = useLocation();
  const visible = navItems.filter((item) => atLeast(me.role, item.min));
  const active = (to: string) => (to === '/' ? location.pathname === '/' : location.pathname === to || location.pathname.startsWith(`${to}/`));
  const section = (name: NavItem['section']) => visible.filter((i) => i.section === name).map((item) => (
    <NavLink key={item.to} component={Link} to={item.to} label={t(item.label)} active={active(item.to)}
      aria-current={active(item.to) ? 'page' : undefined} onClick={onNavigate} />
  ));
  return (
    <nav aria-label={t('nav.main')}>
      {section('main')}
      {visible.some((i) => i.section === 'admin') && <Text size="xs" c="dimmed" px="sm" pt="md" pb={4}>{t('nav.administration')}</Text>}
      {section('admin')}
    </nav>
  );
}

function UserMenu() {
  const me = useCurrentUser();
  const t = useT();
  const navigate = useNavigate();
  const client = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => api.call('logout'),
    onSettled: () => {
      client.clear();
      client.setQueryData(keys.me, null);
      void navigate('/sign-in?signed_out=1');
    },
  });
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={t('nav.userMenu', { name: me.name })} px="xs">
          <Text size="sm" fw={500}>{me.name}</Text>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to="/profile">{t('nav.profile')}</Menu.Item>
        <Menu.Item onClick={() => signOut.mutate()}>{t('nav.signOut')}</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

export function Shell() {
  const [opened, { toggle, close }] = useDisclosure();
  const t = useT();
  useLiveEvents(true);
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('nav.toggle')} />
            <Text component={Link} to="/" fw={700} size="lg">{t('app.name')}</Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            {headerParts.map(({ component: Part }, i) => <Part key={i} />)}
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        <ScrollArea><Navigation onNavigate={close} /></ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main id="main">
        <Suspense fallback={<Center p="xl"><Loading /></Center>}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
