-- Schema of the intx scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE orders (id bigint PRIMARY KEY);
INSERT INTO orders VALUES (1);
CREATE TABLE payments (id bigint PRIMARY KEY, order_id bigint, paid boolean);
INSERT INTO payments VALUES (1, 1, false);
