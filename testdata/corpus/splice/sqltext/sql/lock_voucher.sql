SELECT id FROM credit_notes WHERE id = $1 FOR UPDATE
