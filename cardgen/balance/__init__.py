"""`cardgen balance`: search the card values that balance a game, with the game's simulation.

The plan (plan.py: which values vary, over which ranges, towards which targets) is checked
against the resolved version before any game is played. Every candidate is played on the same
seeds as the version as it is (paired games: simulate.runner's Experiment with `values`), its
games split into chunks that a local pool or a Dask cluster plays (play.py); the targets turn the
figures into a loss with intervals (targets.py); Optuna searches (search.py); the result becomes a
proposed version file (proposal.py) and a report (report.py).
"""
