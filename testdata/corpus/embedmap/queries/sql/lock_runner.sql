SELECT id FROM em_runners WHERE id = $1 FOR UPDATE
