-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "widgetKey" TEXT;

