SELECT id FROM coin_purses WHERE id = $1 FOR UPDATE
