"""Learning from self-play: the value bots' training data and fit (``value``; the skill ladder
that rates them is ``experiments.ladder``). The training library (scikit-learn, the ``train``
extra) is imported only by the fit; playing with a trained model needs none
(``bots.value_model``)."""
