SELECT id FROM hall_passes WHERE id = $1 FOR UPDATE
