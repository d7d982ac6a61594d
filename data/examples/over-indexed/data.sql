-- Seed 002's starting data as notebook 03 loads it (lib/experiments/over-indexing/workload/dataset.ts,
-- loadStatements), sized by :scale as 03's dataScale: 1 = the seed's 20M products, 50M stock draws
-- (~50M rows) and 1M movements; warehouses stay 2,500 at every scale. 03's default is 0.01.
-- setseed(0.42) is 03's randomSeed: the same rows as 03's template. The lab runs VACUUM (ANALYZE) after.
SELECT greatest(1, round(20000000 * :scale))::int AS products,
       greatest(1, round(50000000 * :scale))::int AS stock_draws,
       greatest(1, round(1000000 * :scale))::int AS movements \gset

SELECT setseed(0.42);

INSERT INTO products (name, description, price)
SELECT 'Product ' || i, 'Description for product ' || i, round((random() * 1000 + 10)::numeric, 2)
FROM generate_series(1, :products) AS i;

INSERT INTO warehouses (name, location, max_capacity)
SELECT 'Warehouse ' || i, 'City ' || (i % 100 + 1), (random() * 5000 + 1000)::int
FROM generate_series(1, 2500) AS i;

INSERT INTO stock (product_id, warehouse_id, quantity, min_quantity, max_quantity, reorder_point,
  last_restock_date, is_active, location_code, batch_number, expiration_date, last_updated)
SELECT floor(random() * :products)::int + 1, floor(random() * 2500)::int + 1,
  (random() * 500 + 1)::int, (random() * 10 + 1)::int, (random() * 100 + 50)::int, (random() * 20 + 5)::int,
  now() - random() * interval '180 days', true, 'LOC-' || floor(random() * 10000)::int,
  'BATCH-' || floor(random() * 100000)::int, current_date + (random() * 365)::int, now()
FROM generate_series(1, :stock_draws)
ON CONFLICT (product_id, warehouse_id) DO NOTHING;

INSERT INTO stock_movements (product_id, warehouse_id, quantity, movement_type, movement_date, reason_code,
  reference_document, operator_name, approved_by, movement_status, created_at, updated_at)
SELECT floor(random() * :products)::int + 1, floor(random() * 2500)::int + 1,
  (random() * 500 + 1)::int,
  CASE WHEN random() < 0.6 THEN 'inbound' WHEN random() < 0.9 THEN 'outbound' ELSE 'adjustment' END,
  now() - random() * interval '365 days', 'RC-' || floor(random() * 100)::int, 'DOC-' || floor(random() * 100000)::int,
  'Operator ' || floor(random() * 500)::int, 'Supervisor ' || floor(random() * 100)::int,
  CASE WHEN random() < 0.8 THEN 'completed' ELSE 'pending' END, now(), now()
FROM generate_series(1, :movements);
