SELECT id FROM gift_tokens WHERE id = $1 FOR UPDATE
