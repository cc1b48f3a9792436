/**
 * The typed map operationId → handler. Every operation of openapi.yaml must appear here, either
 * with its handler or as NOT_IMPLEMENTED (answers 501 not_implemented) while it is not built.
 */
import { NOT_IMPLEMENTED, type HandlerMap } from './types.js';
import { operationIds, type OperationId } from '../generated/operations.js';
import type { ApiServices } from './services.js';
import { getLiveness } from './health/get-liveness.js';
import { listNotifications } from './notifications/list-notifications.js';
import { markNotificationRead } from './notifications/mark-notification-read.js';
import { markAllNotificationsRead } from './notifications/mark-all-notifications-read.js';
import { getReadiness } from './health/get-readiness.js';
import { getMetrics } from './metrics/get-metrics.js';
import { getAbout } from './system/get-about.js';
import { createApiKey } from './api-keys/create-api-key.js';
import { listApiKeys } from './api-keys/list-api-keys.js';
import { revokeApiKey } from './api-keys/revoke-api-key.js';
import { confirmPasswordReset } from './auth/confirm-password-reset.js';
import { login } from './auth/login.js';
import { loginSecondFactor } from './auth/login-second-factor.js';
import { startSecondFactorPasskey } from './auth/start-second-factor-passkey.js';
import { startPasskeyLogin } from './auth/start-passkey-login.js';
import { finishPasskeyLogin } from './auth/finish-passkey-login.js';
import { startOidcLogin } from './auth/start-oidc-login.js';
import { finishOidcLogin } from './auth/finish-oidc-login.js';
import { startTotpSetup } from './me/start-totp-setup.js';
import { confirmTotpSetup } from './me/confirm-totp-setup.js';
import { disableMyTwoFactor } from './me/disable-my-two-factor.js';
import { regenerateRecoveryCodes } from './me/regenerate-recovery-codes.js';
import { listMyPasskeys } from './me/list-my-passkeys.js';
import { addMyPasskey } from './me/add-my-passkey.js';
import { startPasskeyRegistration } from './me/start-passkey-registration.js';
import { renameMyPasskey } from './me/rename-my-passkey.js';
import { removeMyPasskey } from './me/remove-my-passkey.js';
import { disableUserTwoFactor } from './users/disable-user-two-factor.js';
import { getSettings } from './settings/get-settings.js';
import { updateSettings } from './settings/update-settings.js';
import { getOidcSettings } from './settings/get-oidc-settings.js';
import { replaceOidcSettings } from './settings/replace-oidc-settings.js';
import { getAlertSettings } from './settings/get-alert-settings.js';
import { getAiStatus } from './ai/get-ai-status.js';
import { generateWithAi } from './ai/generate-with-ai.js';
import { getAiSettings } from './settings/get-ai-settings.js';
import { replaceAiSettings } from './settings/replace-ai-settings.js';
import { testAiSettings } from './settings/test-ai-settings.js';
import { listSystemProblems } from './system/list-system-problems.js';
import { getSystemProblem } from './system/get-system-problem.js';
import { replaceAlertSettings } from './settings/replace-alert-settings.js';
import { testAlertSettings } from './settings/test-alert-settings.js';
import { testOidcSettings } from './settings/test-oidc-settings.js';
import { logout } from './auth/logout.js';
import { requestPasswordReset } from './auth/request-password-reset.js';
import { changeMyPassword } from './me/change-my-password.js';
import { getMe } from './me/get-me.js';
import { listMySessions } from './me/list-my-sessions.js';
import { revokeAllMySessions } from './me/revoke-all-my-sessions.js';
import { revokeMySession } from './me/revoke-my-session.js';
import { updateMe } from './me/update-me.js';
import { listSecurityEvents } from './security-events/list-security-events.js';
import { getSetupStatus } from './setup/get-setup-status.js';
import { getSignInMethods } from './auth/get-sign-in-methods.js';
import { runSetup } from './setup/run-setup.js';
import { createUser } from './users/create-user.js';
import { getUser } from './users/get-user.js';
import { listUsers } from './users/list-users.js';
import { resetUserPassword } from './users/reset-user-password.js';
import { updateUser } from './users/update-user.js';
import { listPlugins } from './plugins/list-plugins.js';
import { listConnections } from './connections/list-connections.js';
import { createConnection } from './connections/create-connection.js';
import { testConnectionSettings } from './connections/test-connection-settings.js';
import { getConnection } from './connections/get-connection.js';
import { updateConnection } from './connections/update-connection.js';
import { deleteConnection } from './connections/delete-connection.js';
import { testConnection } from './connections/test-connection.js';
import { getConnectionSchema } from './connections/get-connection-schema.js';
import { refreshConnectionSchema } from './connections/refresh-connection-schema.js';
import { listQueries } from './queries/list-queries.js';
import { createQuery } from './queries/create-query.js';
import { previewQuery } from './queries/preview-query.js';
import { getQuery } from './queries/get-query.js';
import { updateQuery } from './queries/update-query.js';
import { deleteQuery } from './queries/delete-query.js';
import { listQueryVersions } from './queries/list-query-versions.js';
import { getQueryVersion } from './queries/get-query-version.js';
import { restoreQueryVersion } from './queries/restore-query-version.js';
import { previewSchedule } from './reports/preview-schedule.js';
import { listReports } from './reports/list-reports.js';
import { createReport } from './reports/create-report.js';
import { getReport } from './reports/get-report.js';
import { updateReport } from './reports/update-report.js';
import { deleteReport } from './reports/delete-report.js';
import { pauseReport } from './reports/pause-report.js';
import { resumeReport } from './reports/resume-report.js';
import { runReport } from './reports/run-report.js';
import { listChannels } from './channels/list-channels.js';
import { createChannel } from './channels/create-channel.js';
import { testChannelSettings } from './channels/test-channel-settings.js';
import { getChannel } from './channels/get-channel.js';
import { updateChannel } from './channels/update-channel.js';
import { deleteChannel } from './channels/delete-channel.js';
import { testChannel } from './channels/test-channel.js';
import { retryFailedChannelDeliveries } from './channels/retry-failed-channel-deliveries.js';
import { listChannelAttempts } from './channels/list-channel-attempts.js';
import { listDeliveries } from './deliveries/list-deliveries.js';
import { createDelivery } from './deliveries/create-delivery.js';
import { replaceDelivery } from './deliveries/replace-delivery.js';
import { deleteDelivery } from './deliveries/delete-delivery.js';
import { previewDelivery } from './deliveries/preview-delivery.js';
import { retryDeliveryAttempt } from './runs/retry-delivery-attempt.js';
import { getRunResult } from './runs/get-run-result.js';
import { getStorage } from './system/get-storage.js';
import { listLinks } from './links/list-links.js';
import { createLink } from './links/create-link.js';
import { getLink } from './links/get-link.js';
import { revokeLink } from './links/revoke-link.js';
import { downloadSharedLink } from './links/download-shared-link.js';
import { testDeliverReport } from './reports/test-deliver-report.js';
import { listRuns } from './runs/list-runs.js';
import { getRun } from './runs/get-run.js';
import { cancelRun } from './runs/cancel-run.js';
import { streamEvents } from './events/stream-events.js';
import { exportConfig } from './config/export-config.js';
import { importConfig } from './config/import-config.js';
import { getConfigSchema } from './config/get-config-schema.js';
import { getDashboard } from './home/get-dashboard.js';
import { attachManagedResource, detachManagedResource, getGitopsStatus, guarded } from './config/gitops.js';

export function buildHandlers(s: ApiServices): HandlerMap {
  return {
    exportConfig: exportConfig(s),
    importConfig: importConfig(s),
    getConfigSchema: getConfigSchema(),
    detachManagedResource: detachManagedResource(s),
    attachManagedResource: attachManagedResource(s),
    getGitopsStatus: getGitopsStatus(s),
    getAiStatus: getAiStatus(s),
    generateWithAi: generateWithAi(s),
    getLiveness: getLiveness(),
    getReadiness: getReadiness(s),
    getMetrics: getMetrics(s),
    getSetupStatus: getSetupStatus(s),
    getSignInMethods: getSignInMethods(s),
    runSetup: runSetup(s),
    login: login(s),
    loginSecondFactor: loginSecondFactor(s),
    startSecondFactorPasskey: startSecondFactorPasskey(s),
    startPasskeyLogin: startPasskeyLogin(s),
    finishPasskeyLogin: finishPasskeyLogin(s),
    startOidcLogin: startOidcLogin(s),
    finishOidcLogin: finishOidcLogin(s),
    requestPasswordReset: requestPasswordReset(s),
    confirmPasswordReset: confirmPasswordReset(s),
    logout: logout(s),
    getMe: getMe(s),
    updateMe: updateMe(s),
    changeMyPassword: changeMyPassword(s),
    listMySessions: listMySessions(s),
    revokeMySession: revokeMySession(s),
    revokeAllMySessions: revokeAllMySessions(s),
    startTotpSetup: startTotpSetup(s),
    confirmTotpSetup: confirmTotpSetup(s),
    disableMyTwoFactor: disableMyTwoFactor(s),
    regenerateRecoveryCodes: regenerateRecoveryCodes(s),
    listMyPasskeys: listMyPasskeys(s),
    addMyPasskey: addMyPasskey(s),
    startPasskeyRegistration: startPasskeyRegistration(s),
    renameMyPasskey: renameMyPasskey(s),
    removeMyPasskey: removeMyPasskey(s),
    listUsers: listUsers(s),
    createUser: createUser(s),
    getUser: getUser(s),
    updateUser: updateUser(s),
    resetUserPassword: resetUserPassword(s),
    disableUserTwoFactor: disableUserTwoFactor(s),
    listApiKeys: listApiKeys(s),
    createApiKey: createApiKey(s),
    revokeApiKey: revokeApiKey(s),
    getSettings: getSettings(s),
    updateSettings: updateSettings(s),
    getOidcSettings: getOidcSettings(s),
    replaceOidcSettings: replaceOidcSettings(s),
    testOidcSettings: testOidcSettings(s),
    getAlertSettings: getAlertSettings(s),
    replaceAlertSettings: replaceAlertSettings(s),
    testAlertSettings: testAlertSettings(s),
    listSystemProblems: listSystemProblems(s),
    getSystemProblem: getSystemProblem(s),
    getAiSettings: getAiSettings(s),
    replaceAiSettings: replaceAiSettings(s),
    testAiSettings: testAiSettings(s),
    listSecurityEvents: listSecurityEvents(s),
    getAbout: getAbout(s),
    getStorage: getStorage(s),
    listPlugins: listPlugins(s),
    listConnections: listConnections(s),
    createConnection: createConnection(s),
    testConnectionSettings: testConnectionSettings(s),
    getConnection: getConnection(s),
    updateConnection: guarded(s, 'connection', (p) => p.connectionId, updateConnection(s)),
    deleteConnection: guarded(s, 'connection', (p) => p.connectionId, deleteConnection(s)),
    testConnection: testConnection(s),
    getConnectionSchema: getConnectionSchema(s),
    refreshConnectionSchema: refreshConnectionSchema(s),
    listQueries: listQueries(s),
    createQuery: createQuery(s),
    previewQuery: previewQuery(s),
    getQuery: getQuery(s),
    updateQuery: guarded(s, 'query', (p) => p.queryId, updateQuery(s)),
    deleteQuery: guarded(s, 'query', (p) => p.queryId, deleteQuery(s)),
    listQueryVersions: listQueryVersions(s),
    getQueryVersion: getQueryVersion(s),
    restoreQueryVersion: guarded(s, 'query', (p) => p.queryId, restoreQueryVersion(s)),
    listChannels: listChannels(s),
    createChannel: createChannel(s),
    testChannelSettings: testChannelSettings(s),
    getChannel: getChannel(s),
    updateChannel: guarded(s, 'channel', (p) => p.channelId, updateChannel(s)),
    deleteChannel: guarded(s, 'channel', (p) => p.channelId, deleteChannel(s)),
    testChannel: testChannel(s),
    retryFailedChannelDeliveries: retryFailedChannelDeliveries(s),
    listChannelAttempts: listChannelAttempts(s),
    listLinks: listLinks(s),
    createLink: createLink(s),
    getLink: getLink(s),
    revokeLink: revokeLink(s),
    downloadSharedLink: downloadSharedLink(s),
    listReports: listReports(s),
    createReport: createReport(s),
    getReport: getReport(s),
    updateReport: guarded(s, 'report', (p) => p.reportId, updateReport(s)),
    deleteReport: guarded(s, 'report', (p) => p.reportId, deleteReport(s)),
    pauseReport: guarded(s, 'report', (p) => p.reportId, pauseReport(s)),
    resumeReport: guarded(s, 'report', (p) => p.reportId, resumeReport(s)),
    runReport: runReport(s),
    previewSchedule: previewSchedule(s),
    listDeliveries: listDeliveries(s),
    createDelivery: guarded(s, 'report', (p) => p.reportId, createDelivery(s)),
    replaceDelivery: guarded(s, 'report', (p) => p.reportId, replaceDelivery(s)),
    deleteDelivery: guarded(s, 'report', (p) => p.reportId, deleteDelivery(s)),
    previewDelivery: previewDelivery(s),
    testDeliverReport: testDeliverReport(s),
    listRuns: listRuns(s),
    getRun: getRun(s),
    cancelRun: cancelRun(s),
    retryDeliveryAttempt: retryDeliveryAttempt(s),
    getRunResult: getRunResult(s),
    listNotifications: listNotifications(s),
    markAllNotificationsRead: markAllNotificationsRead(s),
    markNotificationRead: markNotificationRead(s),
    getDashboard: getDashboard(s),
    streamEvents: streamEvents(s),
  };
}

/** What the probe listener (SVC_PROBE_LISTEN) of any process answers: its probes and metrics. */
export const PROBE_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>(['getLiveness', 'getReadiness', 'getMetrics']);

export function buildProbeHandlers(s: Pick<ApiServices, 'readiness' | 'registry' | 'metricsToken'>): HandlerMap {
  const none = Object.fromEntries(operationIds.map((id) => [id, NOT_IMPLEMENTED])) as HandlerMap;
  return { ...none, getLiveness: getLiveness(), getReadiness: getReadiness(s), getMetrics: getMetrics(s) };
}
