-- name: lock ticket
SELECT id FROM entry_tickets WHERE id = $1 FOR UPDATE
