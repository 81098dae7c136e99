-- Schema of the sametx scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE st_credits (id bigint PRIMARY KEY, used boolean);
INSERT INTO st_credits VALUES (1, false);
CREATE TABLE st_invoices (id bigint PRIMARY KEY, billed boolean);
INSERT INTO st_invoices VALUES (1, false);
CREATE TABLE st_journal (id bigint PRIMARY KEY, checked boolean, settled boolean);
INSERT INTO st_journal VALUES (1, false, false);
CREATE TABLE st_ledger (id bigint PRIMARY KEY, audited boolean, settled boolean);
INSERT INTO st_ledger VALUES (1, false, false);
