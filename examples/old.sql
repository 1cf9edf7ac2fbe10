-- The running job: page views per user and 1-minute window.
CREATE TEMPORARY TABLE page_views (
  user_id BIGINT,
  url STRING,
  bytes BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'page_views', 'format' = 'json');

CREATE TEMPORARY TABLE views_per_minute (
  user_id BIGINT,
  window_start TIMESTAMP(3),
  views BIGINT,
  total_bytes BIGINT
) WITH ('connector' = 'jdbc', 'table-name' = 'views_per_minute');

INSERT INTO views_per_minute
SELECT user_id,
       TUMBLE_START(ts, INTERVAL '1' MINUTE),
       COUNT(*),
       SUM(bytes)
FROM page_views
GROUP BY user_id, TUMBLE(ts, INTERVAL '1' MINUTE);
