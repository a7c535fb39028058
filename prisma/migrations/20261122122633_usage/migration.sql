-- CreateTable
CREATE TABLE "UsageCounter" (
    "id" BIGSERIAL NOT NULL,
    "accountId" UUID NOT NULL,
    "subjectKind" TEXT NOT NULL,
    "subjectId" UUID NOT NULL,
    "endpoint" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "UsageCounter_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UsageCounter_accountId_minute_idx" ON "UsageCounter"("accountId", "minute");

