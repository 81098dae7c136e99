-- Schema of the commitbetween scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE import_batches (id bigint PRIMARY KEY, state text);
INSERT INTO import_batches VALUES (1, '1');
CREATE TABLE import_rows (id bigint PRIMARY KEY, batch_id bigint, done boolean);
INSERT INTO import_rows VALUES (1, 1, false);
CREATE TABLE payments (id bigint PRIMARY KEY, reconciled boolean, refunded boolean);
INSERT INTO payments VALUES (1, false, false);
CREATE TABLE refunds (id bigint PRIMARY KEY, payment_id bigint, reconciled boolean, requested boolean);
INSERT INTO refunds VALUES (1, 1, false, false);
