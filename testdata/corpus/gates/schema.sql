-- Schema of the gates scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE journal (id bigint PRIMARY KEY, audited boolean, reconciled boolean);
INSERT INTO journal VALUES (1, false, false);
CREATE TABLE ledger (id bigint PRIMARY KEY, audited boolean, reconciled boolean);
INSERT INTO ledger VALUES (1, false, false);
CREATE TABLE prices (id bigint PRIMARY KEY, product_id bigint, active boolean, discount int);
INSERT INTO prices VALUES (1, 1, false, 0);
CREATE TABLE products (id bigint PRIMARY KEY, discounted boolean, published boolean);
INSERT INTO products VALUES (1, false, false);
CREATE TABLE g_journal (id bigint PRIMARY KEY, n int);
INSERT INTO g_journal VALUES (1, 0);
CREATE TABLE g_balances (id bigint PRIMARY KEY, n int);
INSERT INTO g_balances VALUES (1, 0);
CREATE TABLE g_audit (id bigint PRIMARY KEY, n int);
INSERT INTO g_audit VALUES (1, 0);
CREATE TABLE g_repairs (id bigint PRIMARY KEY, n int);
INSERT INTO g_repairs VALUES (1, 0);
CREATE TABLE gt_shelves (id bigint PRIMARY KEY);
INSERT INTO gt_shelves VALUES (1);
CREATE TABLE gt_bins (id bigint PRIMARY KEY, shelf_id bigint);
INSERT INTO gt_bins VALUES (1, 1);
