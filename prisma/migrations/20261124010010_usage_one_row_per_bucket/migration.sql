-- Until now every flush appended a row per bucket (a bucket = subject, endpoint, status, minute),
-- so a busy minute had up to twelve. Merge them into the oldest row, then make the bucket unique:
-- flushes add to its row from now on (INSERT … ON CONFLICT DO UPDATE).
UPDATE "UsageCounter" AS u SET "count" = d."total"
FROM (
    SELECT MIN("id") AS "keep", SUM("count")::INTEGER AS "total"
    FROM "UsageCounter"
    GROUP BY "subjectId", "endpoint", "status", "minute"
    HAVING COUNT(*) > 1
) AS d
WHERE u."id" = d."keep";

DELETE FROM "UsageCounter" AS u
USING "UsageCounter" AS k
WHERE k."subjectId" = u."subjectId" AND k."endpoint" = u."endpoint" AND k."status" = u."status"
  AND k."minute" = u."minute" AND k."id" < u."id";

-- CreateIndex
CREATE UNIQUE INDEX "UsageCounter_subjectId_endpoint_status_minute_key" ON "UsageCounter"("subjectId", "endpoint", "status", "minute");
