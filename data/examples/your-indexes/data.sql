-- Fills the example schema. :scale (the notebook's `scale` parameter, a psql variable) sizes it:
-- at 1, 20,000 customers, 2,000 products, 500 suppliers and 100,000 orders of three lines each.
SELECT setseed(0.42);

INSERT INTO customers (id, name, email, region)
SELECT i, 'Customer ' || i, 'customer' || i || '@example.com', (ARRAY['north', 'south', 'east', 'west'])[1 + i % 4]
FROM generate_series(1, (20000 * :scale)::int) AS i;

INSERT INTO products (id, sku, name, category, price)
SELECT i, 'SKU-' || i, 'Product ' || i, 'category ' || (i % 50), round((5 + random() * 200)::numeric, 2)
FROM generate_series(1, (2000 * :scale)::int) AS i;

INSERT INTO suppliers (id, name, country)
SELECT i, 'Supplier ' || i, (ARRAY['DE', 'FR', 'JP', 'US', 'BR'])[1 + i % 5]
FROM generate_series(1, (500 * :scale)::int) AS i;

INSERT INTO orders (customer_id, status, created_at, updated_at, total)
SELECT 1 + floor(random() * (20000 * :scale))::int,
  (ARRAY['new', 'paid', 'packed', 'shipped', 'delivered'])[1 + floor(random() * 5)::int],
  t, t, round((10 + random() * 500)::numeric, 2)
FROM (SELECT now() - random() * interval '365 days' AS t FROM generate_series(1, (100000 * :scale)::int)) AS s
ORDER BY t;

INSERT INTO order_lines (order_id, line_no, product_id, quantity, price)
SELECT o.id, l, 1 + floor(random() * (2000 * :scale))::int, 1 + floor(random() * 5)::int,
  round((5 + random() * 200)::numeric, 2)
FROM orders AS o, generate_series(1, 3) AS l;
