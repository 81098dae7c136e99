-- Schema of the beginfunc scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE reservations (id bigint PRIMARY KEY, item_id bigint, qty int);
INSERT INTO reservations VALUES (1, 1, 0);
CREATE TABLE orders (id bigint PRIMARY KEY, state text);
INSERT INTO orders VALUES (1, '1');
CREATE TABLE shipments (id bigint PRIMARY KEY, order_id bigint, state text);
INSERT INTO shipments VALUES (1, 1, '1');
CREATE TABLE stock (id bigint PRIMARY KEY, item_id bigint, reserved int);
INSERT INTO stock VALUES (1, 1, 0);
