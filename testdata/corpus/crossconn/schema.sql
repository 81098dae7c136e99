-- Schema of the crossconn scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE orders (id bigint PRIMARY KEY, invoiced boolean);
INSERT INTO orders VALUES (1, false);
CREATE TABLE accounts (id bigint PRIMARY KEY, balance int, last_activity timestamptz);
INSERT INTO accounts VALUES (1, 0, now());
CREATE TABLE invoices (id bigint PRIMARY KEY, order_id bigint, archived boolean, issued boolean);
INSERT INTO invoices VALUES (1, 1, false, false);
CREATE TABLE log_entries (id bigint PRIMARY KEY, claimed boolean, satisfied boolean);
INSERT INTO log_entries VALUES (1, false, false);
CREATE TABLE idempotency_keys (key text PRIMARY KEY);
INSERT INTO idempotency_keys VALUES ('1');
