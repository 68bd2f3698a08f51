"""Package data of the developer tooling, shipped in the wheel (agent/dev/paths.py reads it).

``kafka/pom.xml``: the testbed's broker classpath (Apache Kafka from Maven Central), copied
into ``<cache>/kafka-libs`` by ``make jars`` or by the first ``rackwise testbed up``;
``kafka/log4j2.properties``: the brokers' logging.
"""
