-- Schema of the retryuow scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE billing_accounts (id bigint PRIMARY KEY, balance bigint NOT NULL DEFAULT 0);
INSERT INTO billing_accounts VALUES (1, 100);
CREATE TABLE billing_invoices (id bigint PRIMARY KEY, paid boolean NOT NULL DEFAULT false);
INSERT INTO billing_invoices VALUES (1, false);
