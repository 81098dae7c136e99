-- Schema of the forshare scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE billing_periods (id bigint PRIMARY KEY, account_id bigint);
INSERT INTO billing_periods VALUES (1, 1);
CREATE TABLE invoices (id bigint PRIMARY KEY, account_id bigint);
INSERT INTO invoices VALUES (1, 1);
CREATE TABLE stock (id bigint PRIMARY KEY, item_id bigint, qty int);
INSERT INTO stock VALUES (1, 1, 0);
