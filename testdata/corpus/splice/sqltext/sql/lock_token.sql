SELECT id FROM tally_marks WHERE id = $1 FOR UPDATE
