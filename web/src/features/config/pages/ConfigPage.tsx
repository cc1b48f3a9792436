/**
 * Configuration as code: resources and export, import (plan, then apply), and the configuration
 * directory's status; one tab per part, each with its own address (/config/<part>). Admins only.
 */
import type { ComponentType } from 'react';
import { Tabs } from '@mantine/core';
import { Navigate, useNavigate, useParams } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { useT } from '../../../i18n';
import { GitopsSection } from '../components/GitopsSection';
import { ImportSection } from '../components/ImportSection';
import { ResourcesSection } from '../components/ResourcesSection';

const SECTIONS: Record<string, ComponentType> = { resources: ResourcesSection, import: ImportSection, gitops: GitopsSection };

export function ConfigPage() {
  const t = useT();
  const admin = useCan('admin');
  const navigate = useNavigate();
  const { section = 'resources' } = useParams();
  if (!admin) return <><PageHeader title={t('config.title')} /><EmptyState title={t('config.adminsOnly')} /></>;
  if (!(section in SECTIONS)) return <Navigate to="/config/resources" replace />;
  const Section = SECTIONS[section]!;
  return (
    <>
      <PageHeader title={t('config.title')} />
      <Tabs value={section} onChange={(v) => { if (v) void navigate(`/config/${v}`); }} keepMounted={false}>
        <Tabs.List mb="lg" aria-label={t('config.sections')}>
          {Object.keys(SECTIONS).map((s) => <Tabs.Tab key={s} value={s}>{t(`config.tab.${s}`)}</Tabs.Tab>)}
        </Tabs.List>
        {/* A panel per tab (each tab's aria-controls names one); only the open one has content. */}
        {Object.keys(SECTIONS).map((s) => <Tabs.Panel key={s} value={s}>{s === section && <Section />}</Tabs.Panel>)}
      </Tabs>
    </>
  );
}
