CREATE TABLE lr_orders (id bigint PRIMARY KEY);
CREATE TABLE lr_items (id bigint PRIMARY KEY, order_id bigint NOT NULL REFERENCES lr_orders (id));
CREATE TABLE lr_lines (id bigint PRIMARY KEY, order_id bigint NOT NULL REFERENCES lr_orders (id));
CREATE TABLE lr_accounts (id bigint PRIMARY KEY, balance bigint NOT NULL);
