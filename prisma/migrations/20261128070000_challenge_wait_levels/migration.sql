-- Widget difficulty as a visitor's median wait (ms) instead of ALTCHA v1's maxnumber. A key's own
-- difficulty keeps its intent: v1's maxnumber 100,000 waited about half a second in a browser.
ALTER TABLE "Plan" ADD COLUMN "challengeWaitMs" INTEGER NOT NULL DEFAULT 500;
ALTER TABLE "Plan" DROP COLUMN "challengeMaxNumber";

ALTER TABLE "ApiKey" ADD COLUMN "challengeWaitMs" INTEGER;
UPDATE "ApiKey" SET "challengeWaitMs" = CASE
  WHEN "challengeMaxNumber" <= 60000 THEN 250
  WHEN "challengeMaxNumber" <= 150000 THEN 500
  WHEN "challengeMaxNumber" <= 400000 THEN 1000
  ELSE 2000
END
WHERE "challengeMaxNumber" IS NOT NULL;
ALTER TABLE "ApiKey" DROP COLUMN "challengeMaxNumber";
