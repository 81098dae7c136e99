-- Schema of the sometx scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE st_baskets (id bigint PRIMARY KEY, n int);
INSERT INTO st_baskets VALUES (1, 0);
CREATE TABLE st_carts (id bigint PRIMARY KEY, n int);
INSERT INTO st_carts VALUES (1, 0);
CREATE TABLE st_coupons (id bigint PRIMARY KEY, n int);
INSERT INTO st_coupons VALUES (1, 0);
CREATE TABLE st_seats (id bigint PRIMARY KEY, n int);
INSERT INTO st_seats VALUES (1, 0);
CREATE TABLE st_tickets (id bigint PRIMARY KEY, n int);
INSERT INTO st_tickets VALUES (1, 0);
CREATE TABLE st_vouchers (id bigint PRIMARY KEY, n int);
INSERT INTO st_vouchers VALUES (1, 0);
