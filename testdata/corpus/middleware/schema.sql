-- Schema of the middleware scenario, for the reproducers of the findings
-- the analyzer reports here.
CREATE TABLE mw_rooms (id bigint PRIMARY KEY, free boolean NOT NULL DEFAULT true);
INSERT INTO mw_rooms VALUES (1);
CREATE TABLE mw_guests (id bigint PRIMARY KEY, stays int NOT NULL DEFAULT 0);
INSERT INTO mw_guests VALUES (1);
CREATE TABLE mw_orders (id bigint PRIMARY KEY, shipped boolean NOT NULL DEFAULT false);
INSERT INTO mw_orders VALUES (1);
CREATE TABLE mw_parcels (id bigint PRIMARY KEY, packed boolean NOT NULL DEFAULT false, shipped boolean NOT NULL DEFAULT false);
INSERT INTO mw_parcels VALUES (1);
CREATE TABLE mw_tags (id bigint PRIMARY KEY, used int NOT NULL DEFAULT 0);
INSERT INTO mw_tags VALUES (1);
CREATE TABLE mw_labels (id bigint PRIMARY KEY, name text NOT NULL DEFAULT '');
INSERT INTO mw_labels VALUES (1);
CREATE TABLE mw_desks (id bigint PRIMARY KEY, free boolean NOT NULL DEFAULT true);
INSERT INTO mw_desks VALUES (1);
CREATE TABLE mw_clerks (id bigint PRIMARY KEY, desk_id bigint);
INSERT INTO mw_clerks VALUES (1, 1);
CREATE TABLE mw_books (id bigint PRIMARY KEY, lent boolean NOT NULL DEFAULT false);
INSERT INTO mw_books VALUES (1);
CREATE TABLE mw_readers (id bigint PRIMARY KEY, loans int NOT NULL DEFAULT 0);
INSERT INTO mw_readers VALUES (1);
