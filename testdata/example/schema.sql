-- Schema of the billing example, for the reproducers (see the README's
-- "Proof on a real PostgreSQL" section). Row 1 of each table is the row the
-- reproducers lock when every placeholder is 1.
CREATE TABLE plans (name text PRIMARY KEY, rate numeric);
CREATE TABLE subscriptions (id serial PRIMARY KEY, account_id bigint NOT NULL, plan text);
CREATE TABLE usage_records (id serial PRIMARY KEY, account_id bigint NOT NULL, units int NOT NULL DEFAULT 0, rate numeric, billed boolean NOT NULL DEFAULT false);
CREATE TABLE invoices (id serial PRIMARY KEY, account_id bigint NOT NULL, plan text, units int);
INSERT INTO plans VALUES ('1', 1);
INSERT INTO subscriptions (account_id, plan) VALUES (1, '1');
INSERT INTO usage_records (account_id, units) VALUES (1, 10);
