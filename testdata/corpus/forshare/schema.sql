-- Schema of the forshare scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE billing_periods (id bigint PRIMARY KEY, account_id bigint);
INSERT INTO billing_periods VALUES (1, 1);
CREATE TABLE invoices (id bigint PRIMARY KEY, account_id bigint);
INSERT INTO invoices VALUES (1, 1);
CREATE TABLE stock (id bigint PRIMARY KEY, item_id bigint, qty int);
INSERT INTO stock VALUES (1, 1, 0);
CREATE TABLE subscriptions (id bigint PRIMARY KEY, account_id bigint, plan text);
INSERT INTO subscriptions VALUES (1, 1, '1');
CREATE TABLE usage_records (id bigint PRIMARY KEY, account_id bigint, units int);
INSERT INTO usage_records VALUES (1, 1, 0);
CREATE TABLE customers (id bigint PRIMARY KEY);
INSERT INTO customers VALUES (1);
CREATE TABLE orders (id bigint PRIMARY KEY, note text);
INSERT INTO orders VALUES (1, '');
CREATE TABLE warehouses (id bigint PRIMARY KEY, restocked_at timestamptz);
INSERT INTO warehouses VALUES (1, now());
CREATE TABLE stock_counts (id bigint PRIMARY KEY, item_id bigint, qty int);
INSERT INTO stock_counts VALUES (1, 1, 0);
