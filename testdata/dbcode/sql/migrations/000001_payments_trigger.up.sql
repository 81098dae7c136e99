-- Every payment adds to its account's balance: the trigger locks the
-- account's row inside the INSERT (or an UPDATE of the amount).
CREATE FUNCTION bump_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts SET balance = balance + NEW.amount WHERE id = NEW.account_id;
  RETURN NEW;
END
$$;
CREATE TRIGGER payments_bump AFTER INSERT OR UPDATE OF amount ON payments
  FOR EACH ROW EXECUTE FUNCTION bump_balance();
