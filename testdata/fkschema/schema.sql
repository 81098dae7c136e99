-- The rows the reproducers lock when every placeholder is 1; the tables come
-- from migrations/ (cmd/pglockorder TestReproducersOnServer applies them first).
INSERT INTO posts VALUES (1, 'hello');
INSERT INTO audit VALUES (1, 0);
INSERT INTO counters VALUES (1, 0);
INSERT INTO authors VALUES (1, 1);
INSERT INTO books VALUES (1, 1, 'first');
-- RenumberPost must change the key (SET id = id behaves as a non-key update).
-- repro: posts_id_new=100
