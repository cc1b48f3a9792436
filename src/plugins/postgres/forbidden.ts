/**
 * Functions the postgres connector refuses to run (query.forbidden_function), checked on the
 * statement's text before it is sent (src/plugins/shared/sql-calls.ts). A read-only transaction
 * does not stop any of them: they signal other sessions, touch the server's files or
 * configuration, reach other servers, run SQL given as text (which no check of ours could read),
 * or leave state on the pooled session that outlives the statement.
 *
 * PostgreSQL has no session setting that forbids a function (unlike MariaDB's
 * max_statement_time, there is no SET for this): what the database user may do is the other
 * defence, and README.md shows a user with SELECT rights only. Functions a view or a function of
 * the database calls are not seen here; that user's privileges decide about those.
 *
 * Not listed on purpose: pg_sleep (statement_timeout bounds it), current_setting, pg_backend_pid;
 * the transaction-level advisory locks end with the rollback (and execute.ts refuses any advisory
 * lock it finds held after the rows, e.g. one taken by a function of the database).
 */
import { denyList, type DeniedFunctions } from '../shared/sql-calls.js';

export const POSTGRES_DENIED_FUNCTIONS: readonly DeniedFunctions[] = [
  {
    why: 'is a server administration function',
    names: [
      'pg_terminate_backend', 'pg_cancel_backend', 'pg_signal_backend', 'pg_reload_conf', 'pg_rotate_logfile',
      'pg_rotate_logfile_old', 'pg_logfile_rotate', 'pg_log_backend_memory_contexts', 'pg_log_standby_snapshot',
      'pg_promote', 'pg_switch_wal', 'pg_switch_xlog', 'pg_create_restore_point', 'pg_backup_start', 'pg_backup_stop',
      'pg_start_backup', 'pg_stop_backup', 'pg_wal_replay_pause', 'pg_wal_replay_resume', 'pg_xlog_replay_pause',
      'pg_xlog_replay_resume', 'pg_stat_reset*', 'pg_stat_statements_reset',
      'pg_create_*_replication_slot', 'pg_copy_*_replication_slot', 'pg_drop_replication_slot',
      'pg_replication_slot_advance', 'pg_sync_replication_slots', 'pg_logical_slot_*', 'pg_logical_emit_message',
      'pg_replication_origin_*',
    ],
  },
  {
    why: 'reads or writes files on the database server',
    names: [
      'pg_read_file', 'pg_read_binary_file', 'pg_stat_file', 'pg_ls_*', 'pg_file_*', 'pg_logdir_ls',
      'lo_import', 'lo_export',
    ],
  },
  {
    why: 'connects from the database server to other servers',
    names: ['dblink', 'dblink_*', 'http', 'http_get', 'http_post', 'http_put', 'http_patch', 'http_delete', 'http_head'],
  },
  {
    why: 'runs SQL given as text, which Herald cannot check',
    names: [
      'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema',
      'ts_stat', 'ts_rewrite', 'pg_background_*',
    ],
  },
  {
    why: 'leaves state on the database session that would outlive the statement on a pooled connection',
    names: ['set_config', 'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared', 'pg_notify'],
  },
];

export const postgresDenyList = denyList('postgres', POSTGRES_DENIED_FUNCTIONS);
