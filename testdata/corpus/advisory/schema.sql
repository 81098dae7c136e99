-- Schema of the advisory scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE search_indexes (id bigint PRIMARY KEY, state text);
INSERT INTO search_indexes VALUES (1, '1');
CREATE TABLE report_rows (id bigint PRIMARY KEY, stale boolean);
INSERT INTO report_rows VALUES (1, false);
CREATE TABLE ledger_invoices (id bigint PRIMARY KEY, account_id bigint);
INSERT INTO ledger_invoices VALUES (1, 1);
CREATE TABLE ledger_jobs (id bigint PRIMARY KEY);
INSERT INTO ledger_jobs VALUES (1);
CREATE TABLE ledger_exports (id bigint PRIMARY KEY);
INSERT INTO ledger_exports VALUES (1);
CREATE TABLE ledger_wallets (id bigint PRIMARY KEY);
INSERT INTO ledger_wallets VALUES (1);
