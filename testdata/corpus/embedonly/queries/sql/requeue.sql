UPDATE eo_builds SET status = 'queued' WHERE runner_id = $1
