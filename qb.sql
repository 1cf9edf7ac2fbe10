CREATE TEMPORARY TABLE user_profile (
  user_id BIGINT, region STRING, level STRING, score INT,
  PRIMARY KEY (user_id, region) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'profiles', 'properties.bootstrap.servers' = 'k:9092', 'key.format' = 'json', 'value.format' = 'json');
CREATE TEMPORARY TABLE level_counts (level STRING, n BIGINT) WITH ('connector' = 'jdbc');
INSERT INTO default_catalog.default_database.level_counts SELECT level, SUM(score) FROM default_catalog.default_database.user_profile GROUP BY level;
