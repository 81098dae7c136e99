-- Requeue what a draining runner runs.
UPDATE em_builds SET status = 'queued' WHERE runner_id = $1
