CREATE TABLE fc_trips (id bigint PRIMARY KEY, status text NOT NULL);
CREATE TABLE fc_log (id bigserial PRIMARY KEY, trip_id bigint NOT NULL REFERENCES fc_trips (id), step text NOT NULL);
