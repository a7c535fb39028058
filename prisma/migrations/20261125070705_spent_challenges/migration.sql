-- CreateTable
CREATE TABLE "SpentChallenge" (
    "hash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SpentChallenge_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "SpentChallenge_expiresAt_idx" ON "SpentChallenge"("expiresAt");

