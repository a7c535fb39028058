-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "secretHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Session_secretHash_key" ON "Session"("secretHash");

