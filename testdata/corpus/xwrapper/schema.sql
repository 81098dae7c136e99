-- Schema of the xwrapper scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE parcels (id bigint PRIMARY KEY, shipment_id bigint, returned boolean, shipped boolean);
INSERT INTO parcels VALUES (1, 1, false, false);
CREATE TABLE shipments (id bigint PRIMARY KEY, returned boolean, shipped boolean);
INSERT INTO shipments VALUES (1, false, false);
