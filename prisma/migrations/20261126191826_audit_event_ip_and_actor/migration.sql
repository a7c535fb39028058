-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "ip" TEXT;

-- CreateIndex
CREATE INDEX "AuditEvent_accountId_actorId_createdAt_id_idx" ON "AuditEvent"("accountId", "actorId", "createdAt", "id");

