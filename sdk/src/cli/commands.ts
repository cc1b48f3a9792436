/** herald-cli's commands: each parses nothing itself, calls the SDK, prints JSON or a short human form. */
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { HeraldClient } from '../client.js';
import { HeraldError, RunFailedError, RunTimeoutError } from '../errors.js';
import type { Run, Schemas } from '../types.js';
import { integerOption, UsageError, type Parsed } from './args.js';

export interface Context {
  client: HeraldClient;
  args: Parsed;
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

export interface Command {
  /** `reports list`, `runs download`, … */
  name: string;
  usage: string;
  /** Positional arguments after the command's name. */
  positionals: string[];
  valued?: string[];
  flags?: string[];
  run(ctx: Context): Promise<number>;
}

const printJson = (ctx: Context, value: unknown) => ctx.out(`${JSON.stringify(value, null, 2)}\n`);

const runLine = (run: Run) => {
  const parts = [`run ${run.id}`, run.status];
  if (run.row_count !== null && run.row_count !== undefined) parts.push(`${run.row_count} rows`);
  if (run.duration_ms !== null && run.duration_ms !== undefined) parts.push(`${run.duration_ms} ms`);
  if (run.error) parts.push(`${run.error.code}${run.error.message ? `: ${run.error.message}` : ''}`);
  return `${parts.join('  ')}\n`;
};

/** A line per delivery that failed, so that a CI log says which channel failed and why. */
const failedDeliveries = (run: Run) => run.delivery_attempts.filter((a) => a.status === 'failed').map((a) =>
  `error: ${a.error?.code ?? 'delivery.failed'}: the delivery to "${a.channel_name}" failed${a.error?.message ? `: ${a.error.message}` : ''} (run ${run.id})\n`).join('');

/** 0 for success or skipped, 2 for partial, 1 for anything else that finished. */
const exitOf = (status: string) => (status === 'success' || status === 'skipped' ? 0 : status === 'partial' ? 2 : 1);

async function writeOut(stream: ReadableStream<Uint8Array>, target: string): Promise<void> {
  const source = Readable.fromWeb(stream as NodeReadableStream<Uint8Array>);
  if (target === '-') await pipeline(source, process.stdout, { end: false });
  else await pipeline(source, createWriteStream(target));
}

async function importFile(ctx: Context, mode: 'plan' | 'apply'): Promise<Schemas['ImportResult']> {
  const file = ctx.args.positionals[0]!;
  const yaml = file === '-' ? await new Response(Readable.toWeb(process.stdin) as ReadableStream).text() : await readFile(file, 'utf8');
  return ctx.client.call('importConfig', { body: { yaml, mode, ...(ctx.args.flags.has('prune') ? { prune: true } : {}) } });
}

function printImport(ctx: Context, result: Schemas['ImportResult']) {
  if (ctx.json) { printJson(ctx, result); return; }
  for (const change of result.changes) ctx.out(`${change.action.padEnd(9)} ${change.kind}/${change.name}\n`);
  const s = result.summary;
  ctx.out(`${result.applied ? 'applied' : 'plan'}: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged\n`);
}

export const commands: Command[] = [
  {
    name: 'reports list', usage: 'reports list [--json]', positionals: [],
    async run(ctx) {
      const reports = [];
      for await (const report of ctx.client.paginate('listReports')) reports.push(report);
      if (ctx.json) printJson(ctx, reports);
      else for (const r of reports) ctx.out(`${r.id}  ${r.paused ? 'paused' : 'active'}  ${r.title}\n`);
      return 0;
    },
  },
  {
    name: 'reports run',
    usage: 'reports run REPORT_ID [--wait] [--timeout SECONDS] [--idempotency-key KEY] [--deliver|--no-deliver] [--json]\n'
      + '  exit 0: success or skipped; 2: partial; 1: failed, cancelled or timed out',
    positionals: ['REPORT_ID'], valued: ['timeout', 'idempotency-key'], flags: ['wait', 'deliver', 'no-deliver'],
    async run(ctx) {
      const { flags, options } = ctx.args;
      if (flags.has('deliver') && flags.has('no-deliver')) throw new UsageError('--deliver and --no-deliver exclude each other');
      if (options.has('timeout') && !flags.has('wait')) throw new UsageError('--timeout needs --wait');
      const timeout = options.has('timeout') ? integerOption(options.get('timeout')!, 'timeout', 1) : undefined;
      const key = options.get('idempotency-key');
      try {
        const run = await ctx.client.runReport(ctx.args.positionals[0]!, {
          wait: flags.has('wait'),
          ...(timeout === undefined ? {} : { timeoutMs: timeout * 1000 }),
          ...(key === undefined ? {} : { idempotencyKey: key }),
          ...(flags.has('deliver') ? { deliver: true } : flags.has('no-deliver') ? { deliver: false } : {}),
        });
        const { partial: _partial, ...plain } = run;
        if (ctx.json) printJson(ctx, plain); else ctx.out(runLine(plain));
        if (!flags.has('wait')) return 0;
        if (run.status === 'partial') ctx.err(failedDeliveries(run));
        return exitOf(run.status);
      } catch (error) {
        if (error instanceof RunFailedError) {
          if (ctx.json) printJson(ctx, error.run); else ctx.out(runLine(error.run));
          const e = error.run.error;
          ctx.err(`error: ${e?.code ?? `run.${error.run.status}`}: ${e?.message ?? `the run ended ${error.run.status}`} (run ${error.run.id})\n`);
          ctx.err(failedDeliveries(error.run));
          return 1;
        }
        if (error instanceof RunTimeoutError) {
          if (ctx.json) printJson(ctx, error.run);
          ctx.err(`error: timeout: run ${error.run.id} is still ${error.run.status} after ${error.timeoutMs / 1000} s\n`);
          return 1;
        }
        throw error;
      }
    },
  },
  {
    name: 'runs get', usage: 'runs get RUN_ID [--json]', positionals: ['RUN_ID'],
    async run(ctx) {
      const run = await ctx.client.call('getRun', { path: { runId: ctx.args.positionals[0]! } });
      if (ctx.json) printJson(ctx, run); else ctx.out(runLine(run));
      return 0;
    },
  },
  {
    name: 'runs download', usage: 'runs download RUN_ID [--format csv|xlsx|json] -o FILE   (-o - writes to stdout)',
    positionals: ['RUN_ID'], valued: ['format', 'output'],
    async run(ctx) {
      const format = ctx.args.options.get('format');
      if (format !== undefined && format !== 'csv' && format !== 'xlsx' && format !== 'json') throw new UsageError('--format is csv, xlsx or json');
      const target = ctx.args.options.get('output');
      if (target === undefined) throw new UsageError('-o FILE is required (-o - for stdout)');
      const file = await ctx.client.download(ctx.args.positionals[0]!, format ? { format } : {});
      await writeOut(file.stream, target);
      if (target !== '-') {
        if (ctx.json) printJson(ctx, { file: target, filename: file.filename, content_type: file.contentType });
        else ctx.err(`wrote ${target} (${file.filename})\n`);
      }
      return 0;
    },
  },
  {
    name: 'links create', usage: 'links create RUN_ID [--days N] [--format csv|xlsx|json] [--json]   (prints the URL)',
    positionals: ['RUN_ID'], valued: ['days', 'format'],
    async run(ctx) {
      const days = ctx.args.options.has('days') ? integerOption(ctx.args.options.get('days')!, 'days', 1, 90) : undefined;
      const format = ctx.args.options.get('format');
      if (format !== undefined && format !== 'csv' && format !== 'xlsx' && format !== 'json') throw new UsageError('--format is csv, xlsx or json');
      const link = await ctx.client.call('createLink', {
        body: { run_id: ctx.args.positionals[0]!, ...(days === undefined ? {} : { expires_in_days: days }), ...(format ? { format } : {}) },
      });
      if (ctx.json) printJson(ctx, link); else ctx.out(`${link.url}\n`);
      return 0;
    },
  },
  {
    name: 'config export', usage: 'config export [-o FILE]   (YAML, to stdout without -o)', positionals: [], valued: ['output'],
    async run(ctx) {
      const response = await ctx.client.fetch('/api/v1/export', {
        method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/yaml' }, body: '{}',
      });
      if (!response.ok) throw await HeraldError.from(response);
      const yaml = await response.text();
      const target = ctx.args.options.get('output');
      if (target === undefined || target === '-') ctx.out(yaml);
      else await writeFile(target, yaml);
      return 0;
    },
  },
  {
    name: 'config plan', usage: 'config plan FILE [--prune] [--json]   (changes nothing; FILE - reads stdin)', positionals: ['FILE'], flags: ['prune'],
    async run(ctx) { printImport(ctx, await importFile(ctx, 'plan')); return 0; },
  },
  {
    name: 'config apply', usage: 'config apply FILE [--prune] [--json]', positionals: ['FILE'], flags: ['prune'],
    async run(ctx) { printImport(ctx, await importFile(ctx, 'apply')); return 0; },
  },
];
