-- A read script (the notebook's `reads`): a customer opens their order history, the latest
-- orders with their lines. It reads orders through orders_customer_idx and order_lines through its
-- primary key, and no other index of the example: the decision table shows which is which.
\set customer random(1, 20000 * :scale)
SELECT o.id, o.status, o.created_at, o.total, l.line_no, l.product_id, l.quantity, l.price
  FROM orders AS o JOIN order_lines AS l ON l.order_id = o.id
  WHERE o.customer_id = :customer
  ORDER BY o.created_at DESC, l.line_no
  LIMIT 30;
