-- Schema of the rowgates scenario, for the reproducers of the findings the
-- analyzer reports here.
CREATE TABLE rg_invoices (id bigint PRIMARY KEY, account_id bigint, status text);
INSERT INTO rg_invoices VALUES (1, 1, 'draft'), (2, 1, 'open');
CREATE TABLE rg_accounts (id bigint PRIMARY KEY, balance bigint);
INSERT INTO rg_accounts VALUES (1, 0), (2, 0);
CREATE TABLE rg_balances (id bigint PRIMARY KEY);
-- repro: rg_invoices_id_list={1}
