CREATE TABLE authors (id bigint PRIMARY KEY, books int NOT NULL DEFAULT 0);
CREATE TABLE books (id bigint PRIMARY KEY, author_id bigint NOT NULL, title text);
ALTER TABLE books ADD CONSTRAINT books_author_fk FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE;
ALTER TABLE likes ADD CONSTRAINT likes_post_fk FOREIGN KEY (post_id) REFERENCES posts (id);
