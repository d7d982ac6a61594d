-- The fulfilment job moves ten consecutive orders one status on (the cycle never leaves a status
-- unchanged, so an index on status sees every one of these updates).
\set first random(1, 100000 * :scale - 10)
UPDATE orders
  SET status = CASE status WHEN 'new' THEN 'paid' WHEN 'paid' THEN 'packed' WHEN 'packed' THEN 'shipped'
                           WHEN 'shipped' THEN 'delivered' ELSE 'new' END,
      updated_at = now()
  WHERE id BETWEEN :first AND :first + 9;
