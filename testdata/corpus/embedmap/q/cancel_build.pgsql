UPDATE em_builds SET status = 'cancelled' WHERE id = $1
