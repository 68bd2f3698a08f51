# The rackwise image for docker-compose.yml: the agent and the Spark metrics job (Java for Spark).
FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends openjdk-17-jre-headless maven \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY protocol protocol
COPY assignor assignor
COPY agent agent
COPY metrics metrics
COPY testbed testbed
RUN pip install --no-cache-dir -c constraints.txt '.[spark]' \
    && mvn -B -q -f testbed/spark/pom.xml dependency:copy-dependencies -DoutputDirectory=/app/.cache/spark-jars \
       -DincludeArtifactIds=spark-sql-kafka-0-10_2.13,spark-token-provider-kafka-0-10_2.13,kafka-clients,commons-pool2
ENV RACKWISE_CACHE_DIR=/app/.cache
RUN useradd --system rackwise && mkdir -p /data && chown rackwise /data
USER rackwise
