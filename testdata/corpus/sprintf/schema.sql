-- Schema of the sprintf scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE card_holds (id bigint PRIMARY KEY);
INSERT INTO card_holds VALUES (1);
CREATE TABLE gift_cards (id bigint PRIMARY KEY, cart_id bigint, reserved boolean);
INSERT INTO gift_cards VALUES (1, 1, false);
CREATE TABLE orders (id bigint PRIMARY KEY, disputed boolean);
INSERT INTO orders VALUES (1, false);
CREATE TABLE payments (id bigint PRIMARY KEY, order_id bigint, captured boolean);
INSERT INTO payments VALUES (1, 1, false);
CREATE TABLE carts (id bigint PRIMARY KEY, items int, touched boolean);
INSERT INTO carts VALUES (1, 0, false);
CREATE TABLE wallets (id bigint PRIMARY KEY, held int);
INSERT INTO wallets VALUES (1, 0);
