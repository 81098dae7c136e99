-- Schema of the funcfields scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE flights (id bigint PRIMARY KEY, seats_left int NOT NULL);
INSERT INTO flights VALUES (1, 10);
CREATE TABLE hotels (id bigint PRIMARY KEY, rooms_left int NOT NULL);
INSERT INTO hotels VALUES (1, 10);
CREATE TABLE buses (id bigint PRIMARY KEY, seats_left int NOT NULL);
INSERT INTO buses VALUES (1, 10);
CREATE TABLE museums (id bigint PRIMARY KEY, tickets_left int NOT NULL);
INSERT INTO museums VALUES (1, 10);
CREATE TABLE cabins (id bigint PRIMARY KEY, berths_left int NOT NULL);
INSERT INTO cabins VALUES (1, 10);
CREATE TABLE excursions (id bigint PRIMARY KEY, places_left int NOT NULL);
INSERT INTO excursions VALUES (1, 10);
CREATE TABLE trains (id bigint PRIMARY KEY, seats_left int NOT NULL);
INSERT INTO trains VALUES (1, 10);
CREATE TABLE platforms (id bigint PRIMARY KEY, slots_left int NOT NULL);
INSERT INTO platforms VALUES (1, 10);
CREATE TABLE invoices (id bigint PRIMARY KEY, paid boolean NOT NULL DEFAULT false);
INSERT INTO invoices VALUES (1, false);
CREATE TABLE ledgers (id bigint PRIMARY KEY, balance bigint NOT NULL DEFAULT 0);
INSERT INTO ledgers VALUES (1, 0);
CREATE TABLE payments (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'new');
INSERT INTO payments VALUES (1, 'new');
CREATE TABLE wallets (id bigint PRIMARY KEY, balance bigint NOT NULL DEFAULT 0);
INSERT INTO wallets VALUES (1, 0);
CREATE TABLE carts (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'open');
INSERT INTO carts VALUES (1, 'open');
CREATE TABLE coupons (id bigint PRIMARY KEY, used int NOT NULL DEFAULT 0);
INSERT INTO coupons VALUES (1, 0);
