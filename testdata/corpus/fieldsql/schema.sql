-- Schema of the fieldsql scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE fs_orders (id bigint PRIMARY KEY, status text);
INSERT INTO fs_orders VALUES (1, 'paid');
CREATE TABLE fs_wallets (id bigint PRIMARY KEY, balance bigint);
INSERT INTO fs_wallets VALUES (1, 0);
