/** Every action the audit log records (GET /api/v1/audit-log?action=…). */
export const AUDIT_ACTIONS = [
  'auth.login',
  'auth.login_failed',
  'auth.password_changed',
  'auth.logout',
  'auth.password_reset',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'api_key.rotated',
  'team.invitation_created',
  'team.invitation_accepted',
  'team.invitation_revoked',
  'team.password_reset_issued',
  'team.role_changed',
  'team.member_removed',
  'account.created',
  'account.updated',
  'account.plan_changed',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
