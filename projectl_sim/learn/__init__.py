"""Learning from self-play: the value bots' training data and fit (``value``), expert iteration
(``expit``), learning curves of network shapes (``curve``) and the shipped model's recipe
(``recipe``; the skill ladder that rates the bots is ``experiments.ladder``). The training
library (scikit-learn, the ``train`` extra) is imported only by the fit; playing with a trained
model needs none (``bots.value_model``)."""
