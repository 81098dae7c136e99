-- name: lock ticket
SELECT id FROM tickets WHERE id = $1 FOR UPDATE
