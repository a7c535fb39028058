-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "challengeMaxNumber" INTEGER;

-- AlterTable
ALTER TABLE "Nonce" ADD COLUMN     "challengeHash" TEXT,
ADD COLUMN     "hostname" TEXT;

-- AlterTable
ALTER TABLE "Plan" ADD COLUMN     "challengeMaxNumber" INTEGER NOT NULL DEFAULT 100000;

-- CreateIndex
CREATE UNIQUE INDEX "Nonce_challengeHash_key" ON "Nonce"("challengeHash");

