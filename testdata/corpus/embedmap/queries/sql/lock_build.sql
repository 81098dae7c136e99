SELECT id FROM em_builds WHERE id = $1 FOR UPDATE
