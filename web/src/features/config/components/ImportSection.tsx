/**
 * Import: paste or upload YAML, make a plan (what each document creates, updates or deletes, field
 * by field), then apply exactly that plan (its plan_hash: refused when the state moved since).
 */
import { useState } from 'react';
import { Alert, Button, Checkbox, FileButton, Group, List, Stack, Text, Textarea, Title } from '@mantine/core';
import { HeraldError, type Schemas } from '@herald/sdk';
import { problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useImport } from '../hooks';
import { documentIndex } from '../utils/exportBody';
import { PlanView } from './PlanView';

export function ImportSection() {
  const t = useT();
  const [yaml, setYaml] = useState('');
  const [prune, setPrune] = useState(false);
  const [plan, setPlan] = useState<{ result: Schemas['ImportResult']; yaml: string; prune: boolean } | null>(null);
  const [applied, setApplied] = useState<Schemas['ImportResult'] | null>(null);
  const planning = useImport();
  const applying = useImport();
  const edit = (text: string) => { setYaml(text); setPlan(null); setApplied(null); applying.reset(); };

  const makePlan = () => {
    setApplied(null);
    applying.reset();
    const asked = { yaml, prune };
    planning.mutate({ yaml, mode: 'plan', prune }, { onSuccess: (result) => setPlan({ result, ...asked }) });
  };
  const apply = () => {
    if (!plan) return;
    applying.mutate({ yaml: plan.yaml, mode: 'apply', prune: plan.prune, plan_hash: plan.result.plan_hash }, {
      onSuccess: (result) => { setApplied(result); setPlan(null); },
    });
  };
  const upload = async (file: File | null) => { if (file) edit(await file.text()); };
  const stale = problemCode(applying.error) === 'import.plan_stale';
  const hasChanges = plan !== null && plan.result.summary.create + plan.result.summary.update + plan.result.summary.delete > 0;

  return (
    <Stack gap="md" maw={960}>
      <Title order={2} size="h4">{t('config.import.title')}</Title>
      <Text size="sm" c="dimmed">{t('config.import.intro')}</Text>
      <Textarea label={t('config.import.yaml')} description={t('config.import.yamlHelp')} value={yaml} autosize minRows={10} maxRows={30}
        spellCheck={false} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        onChange={(e) => edit(e.currentTarget.value)} />
      <Group>
        <FileButton onChange={(f) => void upload(f)} accept=".yaml,.yml,application/yaml,text/yaml">
          {(props) => <Button variant="default" {...props}>{t('config.import.upload')}</Button>}
        </FileButton>
        <Checkbox label={t('config.import.prune')} checked={prune} onChange={(e) => { setPrune(e.currentTarget.checked); setPlan(null); }} />
      </Group>
      <Group>
        <Button onClick={makePlan} loading={planning.isPending} disabled={yaml.trim() === ''}>{t('config.import.plan')}</Button>
      </Group>
      {planning.isError && <ImportProblem error={planning.error} />}
      {plan && (
        <Stack gap="sm">
          <Title order={2} size="h4">{t('config.import.planTitle')}</Title>
          <PlanView result={plan.result} />
          {hasChanges ? (
            <Group>
              <Button onClick={apply} loading={applying.isPending}>{t('config.import.apply')}</Button>
              <Text size="sm">{t('config.import.applyHelp')}</Text>
            </Group>
          ) : <Text size="sm" role="status">{t('config.import.nothingToApply')}</Text>}
        </Stack>
      )}
      {stale && (
        <Alert color="yellow" role="alert" title={t('config.import.staleTitle')}>
          <Group justify="space-between">
            <Text size="sm">{t('config.import.stale')}</Text>
            <Button size="xs" variant="light" onClick={makePlan}>{t('config.import.planAgain')}</Button>
          </Group>
        </Alert>
      )}
      {applying.isError && !stale && <ImportProblem error={applying.error} />}
      {applied && (
        <Stack gap="sm">
          <Alert color="green" role="status" title={t('config.import.applied')}>{t('config.import.appliedHelp')}</Alert>
          <PlanView result={applied} />
        </Stack>
      )}
    </Stack>
  );
}

/** A refused import: per document and line when the YAML does not validate, else the problem itself. */
function ImportProblem({ error }: { error: unknown }) {
  const t = useT();
  if (!(error instanceof HeraldError) || error.errors.length === 0) return <ProblemAlert error={error} />;
  return (
    <Alert color="red" role="alert" title={t('config.import.invalid')}>
      <List size="sm" spacing={4}>
        {error.errors.map((e, i) => {
          const doc = documentIndex(e.field);
          return (
            <List.Item key={i}>
              {doc !== null && <Text span fw={600} inherit>{t('config.plan.document', { n: doc + 1 })} · </Text>}
              {e.line !== undefined && <Text span inherit>{t('config.import.line', { n: e.line })} · </Text>}
              <Text span ff="monospace" inherit>{e.field}</Text>: {e.message ?? e.code}
            </List.Item>
          );
        })}
      </List>
      {error.requestId && <Text size="xs" c="dimmed" mt="xs">{t('app.requestId', { id: error.requestId })}</Text>}
    </Alert>
  );
}
