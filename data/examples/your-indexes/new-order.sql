-- A customer places an order of three lines, priced from products; the total is written last.
\set customer random(1, 20000 * :scale)
\set p1 random(1, 2000 * :scale)
\set p2 random(1, 2000 * :scale)
\set p3 random(1, 2000 * :scale)
BEGIN;
INSERT INTO orders (customer_id) VALUES (:customer) RETURNING id AS order_id \gset
INSERT INTO order_lines (order_id, line_no, product_id, quantity, price)
  SELECT :order_id, l.n, p.id, 1 + l.n % 3, p.price
  FROM (VALUES (1, :p1), (2, :p2), (3, :p3)) AS l (n, product) JOIN products AS p ON p.id = l.product;
UPDATE orders SET total = (SELECT sum(quantity * price) FROM order_lines WHERE order_id = :order_id)
  WHERE id = :order_id;
COMMIT;
