/**
 * Settings, one tab per section, each with its own address (/settings/<section>) so that a link
 * (or a reload) opens the same section. Admins only: others see why, and no admin call is made.
 */
import { lazy, Suspense, type ComponentType } from 'react';
import { Center, Tabs } from '@mantine/core';
import { Navigate, useNavigate, useParams } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { useT } from '../../../i18n';
import { Loading } from '../../../components/Loading';

const SECTIONS: Record<string, ComponentType> = {
  workspace: lazy(async () => ({ default: (await import('../components/WorkspaceSection')).WorkspaceSection })),
  sso: lazy(async () => ({ default: (await import('../components/SsoSection')).SsoSection })),
  ai: lazy(async () => ({ default: (await import('../components/AiSection')).AiSection })),
  alerts: lazy(async () => ({ default: (await import('../components/AlertsSection')).AlertsSection })),
  storage: lazy(async () => ({ default: (await import('../components/StorageSection')).StorageSection })),
  about: lazy(async () => ({ default: (await import('../components/AboutSection')).AboutSection })),
};

export function SettingsPage() {
  const t = useT();
  const admin = useCan('admin');
  const navigate = useNavigate();
  const { section = 'workspace' } = useParams();
  if (!admin) return <><PageHeader title={t('settings.title')} /><EmptyState title={t('settings.adminsOnly')} /></>;
  if (!(section in SECTIONS)) return <Navigate to="/settings/workspace" replace />;
  const Section = SECTIONS[section]!;
  return (
    <>
      <PageHeader title={t('settings.title')} />
      <Tabs value={section} onChange={(v) => { if (v) void navigate(`/settings/${v}`); }} keepMounted={false}>
        <Tabs.List mb="lg" aria-label={t('settings.sections')}>
          {Object.keys(SECTIONS).map((s) => <Tabs.Tab key={s} value={s}>{t(`settings.tab.${s}`)}</Tabs.Tab>)}
        </Tabs.List>
        {/* A panel per tab (each tab's aria-controls names one); only the open one has content. */}
        {Object.keys(SECTIONS).map((s) => (
          <Tabs.Panel key={s} value={s}>
            {s === section && (
              <Suspense fallback={<Center p="xl"><Loading size="sm" /></Center>}>
                <Section />
              </Suspense>
            )}
          </Tabs.Panel>
        ))}
      </Tabs>
    </>
  );
}
