/**
 * `herald config export|plan|apply [--prune] [--detailed-exitcode] [--plan-hash=H] [FILE|DIR]`: configuration as
 * code from a deploy pipeline, without the API: the same services as POST /export and /import,
 * on the store and Redis of the settings (events of an apply reach the running instances). A
 * directory is read as every *.yaml and *.yml file in it, sorted, as one configuration. Exit codes:
 * 0 done (with --detailed-exitcode: no changes), 2 with --detailed-exitcode when the plan or apply
 * has changes, 1 on anything else (invalid documents, a refused or stale apply, bad settings or
 * usage; the problems go to stderr). `--plan-hash=H` applies only the plan that `plan` printed.
 * It never makes a secret key: it needs the service's own.
 */
import type { Settings } from '../infra/config/settings.js';
import type { Logger } from '../infra/log/logger.js';
import { DomainError } from '../core/errors.js';
import type { Plan } from '../domain/config/model.js';
import { readConfigSources } from './config-sources.js';

export { readConfigSources };
import { createContainer } from './container.js';
import { createServices } from './services.js';
import type { Outcome } from './cli-admin.js';

function describe(plan: Plan): string {
  const lines = plan.changes.filter((c) => c.action !== 'unchanged').map((c) => {
    const sign = { create: '+', update: '~', delete: '-', unchanged: ' ' }[c.action];
    const fields = c.diff.map((f) => `    ${f.path}${f.secret ? ` (secret ${f.secret})` : `: ${JSON.stringify(f.before ?? null)} -> ${JSON.stringify(f.after ?? null)}`}`);
    return [`${sign} ${c.kind} ${c.name}`, ...fields].join('\n');
  });
  const s = plan.summary;
  lines.push(`${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged\nplan_hash ${plan.hash}`);
  return `${lines.join('\n')}\n`;
}

export async function configCommand(settings: Settings, logger: Logger, args: string[]): Promise<Outcome> {
  const [verb, ...rest] = args;
  const flags = new Set(rest.filter((a) => a.startsWith('--') && !a.startsWith('--plan-hash=')));
  const target = rest.find((a) => !a.startsWith('--'));
  const usage = 'herald: usage: herald config export [FILE] | plan [--prune] [--detailed-exitcode] FILE|DIR | apply [--prune] [--detailed-exitcode] FILE|DIR\n';
  if (!verb || !['export', 'plan', 'apply'].includes(verb) || (verb !== 'export' && !target)) return { code: 1, stdout: '', stderr: usage };
  const planHash = rest.find((a) => a.startsWith('--plan-hash='))?.slice('--plan-hash='.length);
  const c = createContainer(settings, logger);
  try {
    const { config } = createServices(c);
    if (verb === 'export') {
      const yaml = await config.export();
      if (target) {
        const { writeFile } = await import('node:fs/promises');
        await writeFile(target, yaml);
        return { code: 0, stdout: `herald: wrote ${target}\n`, stderr: '' };
      }
      return { code: 0, stdout: yaml, stderr: '' };
    }
    const sources = await readConfigSources(target!);
    const prune = flags.has('--prune');
    const plan = verb === 'plan'
      ? await config.plan(sources, { prune, by: 'import' })
      : await config.apply(sources, { prune, planHash, by: 'import', actor: { type: 'system', userId: null, apiKeyId: null, ip: null, userAgent: 'herald config apply' } });
    const changed = plan.summary.create + plan.summary.update + plan.summary.delete > 0;
    return { code: flags.has('--detailed-exitcode') && changed ? 2 : 0, stdout: `${verb === 'apply' ? 'Applied:\n' : ''}${describe(plan)}`, stderr: '' };
  } catch (err) {
    if (err instanceof DomainError) {
      const problems = (err.extras.errors ?? []).map((e) => `  ${e.field}: ${e.message ?? e.code}`).join('\n');
      return { code: 1, stdout: '', stderr: `herald: ${err.code}: ${err.message}\n${problems ? `${problems}\n` : ''}` };
    }
    throw err;
  } finally {
    c.drain();
    await c.close();
  }
}
