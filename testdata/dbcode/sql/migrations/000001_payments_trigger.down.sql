DROP TRIGGER payments_bump ON payments;
DROP FUNCTION bump_balance();
