"""kafkasim: a deterministic simulator of Apache Kafka consumer groups, for learning.

Core needs only numpy and pandas; charts (`kafkasim.viz`), widgets and Spark are optional extras.
"""

from . import faults
from .engine import Simulation, Timer
from .errors import ConfigError, Errors, KafkaException
from .network import ClientGroup, NetworkScenario, simulate_network
from .run import Run
from .scenario import Scenario, simulate
from .workload import Constant, Custom, LogNormal

__version__ = "0.1.0"
__all__ = ["Simulation", "Timer", "Errors", "KafkaException", "ConfigError", "Scenario", "simulate", "Run",
           "faults", "Constant", "LogNormal", "Custom", "NetworkScenario", "ClientGroup", "simulate_network",
           "__version__"]
