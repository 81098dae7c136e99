-- Schema of the multistmt scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE orders (id bigint PRIMARY KEY, item_count int);
INSERT INTO orders VALUES (1, 0);
CREATE TABLE order_items (id bigint PRIMARY KEY, order_id bigint, removed boolean);
INSERT INTO order_items VALUES (1, 1, false);
CREATE TABLE journals (id bigint PRIMARY KEY, void boolean);
INSERT INTO journals VALUES (1, false);
CREATE TABLE postings (id bigint PRIMARY KEY, journal_id bigint, void boolean);
INSERT INTO postings VALUES (1, 1, false);
CREATE TABLE settlement_batches (id bigint PRIMARY KEY, reversed boolean);
INSERT INTO settlement_batches VALUES (1, false);
CREATE TABLE settlements (id bigint PRIMARY KEY, batch_id bigint, state text);
INSERT INTO settlements VALUES (1, 1, '1');
