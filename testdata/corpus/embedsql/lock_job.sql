-- Lock a job before working on it.
SELECT id, account_id
FROM jobs
WHERE id = $1
FOR UPDATE
