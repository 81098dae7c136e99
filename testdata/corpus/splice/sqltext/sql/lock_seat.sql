-- name: lock seat
SELECT id FROM seats WHERE id = $1 FOR UPDATE
