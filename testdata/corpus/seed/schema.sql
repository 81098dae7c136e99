-- Schema of the seed scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE usage_records (id bigint PRIMARY KEY, account_id bigint, billed boolean);
INSERT INTO usage_records VALUES (1, 1, false);
CREATE TABLE subscriptions (id bigint PRIMARY KEY, account_id bigint, plan text, price int);
INSERT INTO subscriptions VALUES (1, 1, '1', 0);
