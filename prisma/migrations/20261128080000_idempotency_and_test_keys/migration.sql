-- Verify's Idempotency-Key records are kept beside single use, with their verdict. Test keys answer a fixed verdict.
ALTER TABLE "SpentChallenge" ADD COLUMN "value" TEXT;
ALTER TABLE "ApiKey" ADD COLUMN "testVerdict" TEXT;
