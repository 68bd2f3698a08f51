"""Package data of the metrics job, shipped in the wheel (metrics/session.py reads it).

``spark/pom.xml``: the Spark Kafka connector jars pyspark does not ship, copied into
``<cache>/spark-jars`` by ``make jars`` or by the first ``rackwise metrics run``.
"""
