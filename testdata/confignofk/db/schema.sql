CREATE TABLE posts (id bigint PRIMARY KEY, title text);
CREATE TABLE comments (id bigint PRIMARY KEY, post_id bigint NOT NULL, body text);
CREATE TABLE audit (id bigint PRIMARY KEY, events bigint NOT NULL DEFAULT 0);
