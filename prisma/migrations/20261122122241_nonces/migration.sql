-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "nonceTtlSeconds" INTEGER NOT NULL DEFAULT 300;

-- CreateTable
CREATE TABLE "Nonce" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "apiKeyId" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Nonce_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Nonce_hash_key" ON "Nonce"("hash");

-- CreateIndex
CREATE INDEX "Nonce_expiresAt_idx" ON "Nonce"("expiresAt");

-- AddForeignKey
ALTER TABLE "Nonce" ADD CONSTRAINT "Nonce_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

