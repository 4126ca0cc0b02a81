"""kafkasim: a deterministic simulator of Apache Kafka consumer groups, for learning.

The package is laid out by Kafka part (docs/architecture.md has the picture and the layer rule):

- `kafkasim.core`: the engine, the event schema, Kafka's errors and configs by version, faults;
- `kafkasim.coordinator`: the group coordinator on the broker (the classic protocol today);
- `kafkasim.client`: the Java consumer (poll loop, assignors, subscription state, fetch buffer);
- `kafkasim.broker`: the broker's network layer, request memory and fetch sizing;
- `kafkasim.zookeeper`: the Kafka 0.8 ZooKeeper consumer and its ensemble;
- `kafkasim.scenario`: a learner's question (`Scenario`), `simulate`, and its answer (`Run`);
- `kafkasim.analysis`: sweeps, broker-log parsing, Spark and the `kafkasim` command;
- `kafkasim.viz`: charts, live explorers and exercises for the chapters.

The names a learner types are importable from here. The core and the models need only numpy,
pandas and pyarrow; `kafkasim.viz` needs the `viz` extra, `kafkasim.analysis.spark` the `spark` one.
"""

from kafkasim.broker.network import ClientGroup, NetworkScenario, simulate_network
from kafkasim.coordinator import GroupCoordinator
from kafkasim.core import faults
from kafkasim.core.engine import Simulation, Timer
from kafkasim.core.errors import ConfigError, Errors, KafkaException
from kafkasim.core.provenance import KAFKASIM_VERSION, read_provenance
from kafkasim.scenario import Run, Scenario, simulate
from kafkasim.scenario.workload import Constant, Custom, LogNormal

__version__ = KAFKASIM_VERSION
__all__ = ["Simulation", "Timer", "GroupCoordinator", "Errors", "KafkaException", "ConfigError", "Scenario",
           "simulate", "Run", "faults", "Constant", "LogNormal", "Custom", "NetworkScenario", "ClientGroup",
           "simulate_network", "read_provenance", "__version__"]
