CREATE TABLE lf_vehicles (id bigint PRIMARY KEY, status text);
CREATE TABLE lf_depots (id bigint PRIMARY KEY, size int);
INSERT INTO lf_vehicles VALUES (1, 'held'), (2, 'held');
INSERT INTO lf_depots VALUES (1, 10), (2, 10);
