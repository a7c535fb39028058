-- CreateTable
CREATE TABLE "DeletedAccount" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "deletedById" UUID NOT NULL,
    "deletedByEmail" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "purged" JSONB NOT NULL,
    "deletedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DeletedAccount_pkey" PRIMARY KEY ("id")
);

