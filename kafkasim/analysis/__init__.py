"""Reading many runs and real brokers: sweep grids (`sweep_grid`), real `server.log` parsing into
the event schema (`log_parser`), the same on Spark (`spark`), experiments that compare models
(`experiments`), and the `kafkasim` command (`cli`).

May import: `kafkasim.core`, the models and `kafkasim.scenario`. Never the views.
"""
