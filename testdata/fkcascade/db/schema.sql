CREATE TABLE cc_warehouses (id bigint PRIMARY KEY);
CREATE TABLE cc_bins (id bigint PRIMARY KEY, warehouse_id bigint NOT NULL REFERENCES cc_warehouses(id) ON DELETE CASCADE);
CREATE TABLE cc_stock (bin_id bigint NOT NULL REFERENCES cc_bins(id) ON DELETE CASCADE, sku text NOT NULL, qty int NOT NULL, PRIMARY KEY (bin_id, sku));
