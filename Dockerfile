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
RUN pip install --no-cache-dir -c constraints.txt '.[spark]' \
    && mvn -B -q -f metrics/resources/spark/pom.xml dependency:copy-dependencies -DoutputDirectory=/app/.cache/spark-jars
ENV RACKWISE_CACHE_DIR=/app/.cache
RUN useradd --system rackwise && mkdir -p /data && chown rackwise /data
USER rackwise
