# rackwise: `make test` and `make demo` set everything up on a fresh machine themselves.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The jar cache; RACKWISE_CACHE_DIR moves it (the testbed and the Spark job read the same variable).
CACHE := $(abspath $(or $(RACKWISE_CACHE_DIR),.cache))
MVN := mvn -B -q
# The Kafka release for the testbed brokers, the Java peers and the plug-in tests: the broker
# POM's kafka.version unless RACKWISE_KAFKA_VERSION says otherwise (agent/dev/kafkaversion.py
# reads the same).
KAFKA_POM := agent/dev/resources/kafka/pom.xml
# Each release's broker jars have their own cache directory, kafka-libs-<version>.
KAFKA_VERSION := $(or $(RACKWISE_KAFKA_VERSION),$(shell sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' $(KAFKA_POM) | head -1))
KAFKA_LIBS := $(CACHE)/kafka-libs-$(KAFKA_VERSION)
JAVA_PROJECTS := $(sort $(dir $(wildcard tests/java/*/pom.xml bench/java/*/pom.xml)))
PYTEST_ARGS ?=

.PHONY: compat setup system-deps python-deps jars plugins plugins-test java test test-fast lint demo chaos bench clean testbed-up testbed-down

setup: system-deps python-deps jars plugins

# java and mvn come with the machine. docker-compose (the Python v1 from Debian) only
# validates docker-compose.yml here, since no engine runs; promtool (Debian's prometheus)
# unit-tests deploy/prometheus/, and the same package's server runs the live dashboard test
# (tests/integration/test_dashboard_live.py). Both come from one apt-get call where we are root with apt,
# and are otherwise only warned about: their tests say what is missing. Without recommends:
# neither docker.io nor prometheus-node-exporter is wanted (on a systemd host the prometheus
# package still enables its own server on :9090; `systemctl disable --now prometheus` if unwanted).
APT_DEPS = $(if $(shell command -v docker-compose),,docker-compose) $(if $(shell command -v promtool),,prometheus)
system-deps:
	@command -v java >/dev/null || { echo "java not found: install OpenJDK 17+ (apt-get install openjdk-17-jdk-headless)"; exit 1; }
	@command -v mvn >/dev/null || { echo "mvn not found: install Maven (apt-get install maven)"; exit 1; }
	@if [ -n "$(strip $(APT_DEPS))" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing $(strip $(APT_DEPS)) (docker-compose: validation only; prometheus: promtool)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_DEPS) >/dev/null) \
	      || echo "warning: could not install $(strip $(APT_DEPS)); the compose and prometheus-rules tests will say so"; \
	  else echo "warning: $(strip $(APT_DEPS)) not installed; the compose and prometheus-rules tests will say so"; fi; \
	fi

python-deps: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[spark,dev]'
	touch $@

# The POMs are package data, so an installed wheel fetches the same jars on first use
# (agent/dev/paths.py, metrics/session.py); the Spark POM names the four connector jars itself.
SPARK_POM := metrics/resources/spark/pom.xml
JMX_EXPORTER_POM := agent/dev/resources/jmx-exporter/pom.xml
jars: $(KAFKA_LIBS)/.complete $(CACHE)/spark-jars/.complete $(CACHE)/jmx-exporter/.complete
$(KAFKA_LIBS)/.complete: $(KAFKA_POM)
	$(MVN) -f $(KAFKA_POM) dependency:copy-dependencies -DincludeScope=runtime \
	  -Dkafka.version=$(KAFKA_VERSION) -DoutputDirectory=$(KAFKA_LIBS)
	touch $@
$(CACHE)/spark-jars/.complete: $(SPARK_POM)
	$(MVN) -f $(SPARK_POM) dependency:copy-dependencies -DoutputDirectory=$(CACHE)/spark-jars
	touch $@
# The Prometheus JMX exporter agent the testbed brokers run (deploy/prometheus/jmx-exporter.yml),
# saved without its version (jmx_prometheus_javaagent.jar) so agent/dev/testbed.py and
# docker-compose.yml name it the same whatever the pom says.
$(CACHE)/jmx-exporter/.complete: $(JMX_EXPORTER_POM)
	$(MVN) -f $(JMX_EXPORTER_POM) dependency:copy-dependencies -DexcludeTransitive=true \
	  -Dmdep.stripVersion=true -DoutputDirectory=$(CACHE)/jmx-exporter
	touch $@

# The JVM plug-in jar (plugins/README.md): rackwise's cores at Kafka's assignor plug-in points.
# Rebuilt when a source or the pom changes; its unit tests run in `make java` (so in `make test`).
PLUGIN_JAR := plugins/target/rackwise-plugins.jar
plugins: $(PLUGIN_JAR)
$(PLUGIN_JAR): plugins/pom.xml $(shell find plugins/src/main plugins/src/kip1357 -type f 2>/dev/null)
	$(MVN) -f plugins/pom.xml package
	@touch $@
# The jar is compiled against the oldest Kafka it supports (plugins/pom.xml); its unit tests run
# against KAFKA_VERSION in a build directory of their own, so they never replace the jar.
plugins-test:
	$(MVN) -f plugins/pom.xml package -DskipTests=false -Dkafka.version=$(KAFKA_VERSION) \
	  -Drackwise.build.dir=$(CURDIR)/plugins/target/kafka-$(KAFKA_VERSION)

# The Java peers (golden vectors, parity harnesses) are built up front so test timings are honest.
java: python-deps plugins-test
	@for p in $(JAVA_PROJECTS); do echo "building $$p"; $(BIN)/python -c "import sys; from tests.support.javaharness import build; build(sys.argv[1])" $$p || exit 1; done

# Every tier: unit, property, java parity, integration (real 3-broker KRaft), spark (real
# local Spark), and the bounded chaos suite. The testbed is started once by the session
# fixture and stopped at the end. pytest's exit code 5 (no tests ran) fails like any other.
# Native code's stderr (librdkafka's own assertions) goes to .cache/native-stderr.log, whose end
# is printed if pytest dies without its summary (tests/conftest.py, docs/development.md).
test: setup java
	@rm -f .cache/pytest-current-test
	RACKWISE_NATIVE_STDERR=$(CURDIR)/.cache/native-stderr.log \
	  $(BIN)/python -m pytest -p no:cacheprovider --capture=sys --durations=30 $(PYTEST_ARGS) || { rc=$$?; \
	  test -f .cache/pytest-current-test && echo "pytest exited $$rc during or after: $$(cat .cache/pytest-current-test)"; \
	  if [ $$rc -gt 1 ] && [ -f .cache/native-stderr.log ]; then \
	    echo "--- the end of native stderr (.cache/native-stderr.log):"; tail -n 40 .cache/native-stderr.log; fi; \
	  exit $$rc; }

test-fast: python-deps
	$(BIN)/python -m pytest -p no:cacheprovider -m "unit or property" $(PYTEST_ARGS)

# The Kafka-release matrix (tests/compat): every cell on a testbed of its own release,
# fetched on demand, and the tests elsewhere marked compat (an older client on the session
# testbed); writes docs/compat.md. `make test` runs only the cells marked compat_smoke.
COMPAT_TESTS = tests/compat tests/integration/test_streams_task_assignor.py
compat: setup java
	RACKWISE_COMPAT_REPORT=$(CURDIR)/docs/compat.md \
	  RACKWISE_COMPAT_COMMAND="make compat" \
	  $(BIN)/python -m pytest -p no:cacheprovider -m compat $(COMPAT_TESTS) $(PYTEST_ARGS)

lint: python-deps
	$(BIN)/ruff check protocol assignor agent metrics tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

chaos: setup
	RACKWISE_CHAOS_FULL=1 $(BIN)/python -m pytest -p no:cacheprovider -m chaos $(PYTEST_ARGS)

# Testbed, agent, members in three racks (Python PlanFollowers, classic Java consumers with the
# plug-in jar, a KIP-848 group), plan vs wire, a replica move and the Spark metrics job; prints
# the cross-rack figures before and after and the report's path, then stops everything it
# started. Needs no Java peers (no `java` prerequisite): its Java consumer is one source file
# compiled with javac against the jars `setup` fetches. DEMO_ARGS="--keep" leaves the testbed up.
DEMO_ARGS ?=
demo: setup
	$(BIN)/rackwise demo $(DEMO_ARGS)

bench: setup java
	@echo "see bench/README.md for each benchmark's command"

testbed-up: setup
	$(BIN)/rackwise testbed up
testbed-down:
	$(BIN)/rackwise testbed down

clean:
	-$(BIN)/rackwise testbed down 2>/dev/null
	rm -rf .testbed build *.egg-info
