/**
 * The assistant's proposal, when GET /ai/status says query drafts are available: a question in
 * the person's words, then the proposed SQL shown against the current text (a diff), its
 * explanation and how it was checked. Nothing changes until "Use this SQL"; nothing is saved or run.
 */
import { useState } from 'react';
import { Alert, Badge, Button, Group, List, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { CodeEditor } from '../../../components/CodeEditor';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useAiStatus, useProposeQuery, type AiProposal } from '../hooks';
import { parameterDraft, type QueryDraft } from '../utils/draft';

export function AssistantButton({ draft, onAccept }: { draft: QueryDraft; onAccept: (patch: Partial<QueryDraft>) => void }) {
  const t = useT();
  const status = useAiStatus();
  const [opened, { open, close }] = useDisclosure(false);
  if (!status.data?.available || !status.data.kinds.includes('query')) return null;
  return (
    <>
      <Button size="xs" variant="light" onClick={open} disabled={draft.connectionId === null}
        title={draft.connectionId === null ? t('queries.ai.needsConnection') : undefined}>{t('queries.ai.open')}</Button>
      {opened && <AssistantDialog draft={draft} onClose={close} onAccept={(patch) => { onAccept(patch); close(); }} />}
    </>
  );
}

function AssistantDialog({ draft, onClose, onAccept }: { draft: QueryDraft; onClose: () => void; onAccept: (patch: Partial<QueryDraft>) => void }) {
  const t = useT();
  const [prompt, setPrompt] = useState('');
  const propose = useProposeQuery();
  const proposal = propose.data;
  const ask = () => propose.mutate({ prompt, connection_id: draft.connectionId!, ...(draft.sql.trim() ? { sql: draft.sql } : {}) });
  const accept = (p: AiProposal) => onAccept({
    sql: p.sql ?? draft.sql,
    ...(p.parameters ? { parameters: p.parameters.map((x) => parameterDraft(x)) } : {}),
  });
  return (
    <Modal opened onClose={onClose} title={t('queries.ai.title')} size="xl" closeButtonProps={{ 'aria-label': t('app.close') }}>
      <Stack>
        <Textarea label={t('queries.ai.prompt')} description={t('queries.ai.promptHelp')} autosize minRows={2} maxRows={6}
          value={prompt} onChange={(e) => setPrompt(e.currentTarget.value)} data-autofocus />
        <Group><Button onClick={ask} loading={propose.isPending} disabled={prompt.trim() === ''}>{t('queries.ai.propose')}</Button></Group>
        {propose.isError && <ProblemAlert error={propose.error} />}
        {proposal && (
          <Stack gap="sm" aria-live="polite">
            <Text size="sm">{proposal.explanation}</Text>
            <Group gap="xs">
              {proposal.validation?.ok
                ? <Badge color="green" variant="dot" tt="none">{proposal.validation.explained ? t('queries.ai.checkedExplain') : t('queries.ai.checked')}</Badge>
                : <Badge color="red" variant="dot" tt="none">{t('queries.ai.notChecked')}</Badge>}
              {proposal.repaired && <Badge color="yellow" variant="dot" tt="none">{t('queries.ai.repaired')}</Badge>}
            </Group>
            {proposal.validation && !proposal.validation.ok && (
              <Alert color="red" title={t('queries.ai.problems')}>
                <List size="sm">{proposal.validation.errors.map((e, i) => <List.Item key={i}>{e.message}</List.Item>)}</List>
              </Alert>
            )}
            <CodeEditor language="sql" label={t('queries.ai.proposed')} value={proposal.sql ?? ''} readOnly
              original={draft.sql.trim() ? draft.sql : undefined} description={draft.sql.trim() ? t('queries.ai.diffHelp') : undefined} />
            {(proposal.parameters?.length ?? 0) > 0 && (
              <Text size="sm">{t('queries.ai.parameters')} {proposal.parameters!.map((p) => `${p.name} (${t(`queries.type.${p.type}`)})`).join(', ')}</Text>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>{t('queries.ai.discard')}</Button>
              <Button onClick={() => accept(proposal)}>{t('queries.ai.use')}</Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
