-- Schema of the autocommit scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE wallets (id bigint PRIMARY KEY, balance int);
INSERT INTO wallets VALUES (1, 0);
CREATE TABLE ledger_entries (id bigint PRIMARY KEY, wallet_id bigint, settled boolean);
INSERT INTO ledger_entries VALUES (1, 1, false);
