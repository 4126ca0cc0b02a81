"""kafkasim: a deterministic simulator of Apache Kafka consumer groups, for learning.

Core needs only numpy and pandas; charts (`kafkasim.viz`), widgets and Spark are optional extras.
"""

from .engine import Simulation, Timer
from .errors import ConfigError, Errors, KafkaException

__version__ = "0.1.0"
__all__ = ["Simulation", "Timer", "Errors", "KafkaException", "ConfigError", "__version__"]
