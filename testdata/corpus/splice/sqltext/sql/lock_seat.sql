-- name: lock seat
SELECT id FROM berths WHERE id = $1 FOR UPDATE
