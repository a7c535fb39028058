-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "expiryNoticeDays" INTEGER,
ADD COLUMN     "rateLimitNoticeAt" TIMESTAMP(3),
ADD COLUMN     "surgeStartedAt" TIMESTAMP(3);

