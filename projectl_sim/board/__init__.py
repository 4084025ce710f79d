"""The analysis board: a game's win chances step by step, its turning points and mistakes, and
any position as a study.

``position`` (the position file: a record cut at a step, replayed and checked), ``winprob``
(each seat's win chance after every step, from the learned evaluation calibrated on self-play,
or from rollouts with an interval), ``turning`` (the steps where a seat's chance fell most, with
the alternatives the value search prefers; a run's summary of where games are decided) and
``study`` (games played from a position, one configuration of a run per action, on shared
deals of what the seat to move cannot see: ``sim.position_study``; read back from the tables).
The board plays bots, so it sits above ``bots`` and ``sim`` and below the command line;
``analysis`` and ``view`` never import it.
"""
