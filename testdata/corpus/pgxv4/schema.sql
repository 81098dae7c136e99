-- Schema of the pgxv4 scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE v4_accounts (id bigint PRIMARY KEY, balance int);
INSERT INTO v4_accounts VALUES (1, 0);
CREATE TABLE v4_ledger (id bigint PRIMARY KEY, account_id bigint, posted boolean);
INSERT INTO v4_ledger VALUES (1, 1, false);
