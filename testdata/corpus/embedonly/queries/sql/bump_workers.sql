UPDATE eo_workers SET busy = busy + 1 WHERE queue_id = $1
