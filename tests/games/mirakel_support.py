"""Shared by the Mirakel Mix tests: bowl contents and ways to play a list of actions."""

# Bowl contents used by most tests: the cauldron then keeps 3 purple and 3 orange.
BOWLS = ["red", "red", "red", "yellow",
         "yellow", "yellow", "green", "green",
         "green", "blue", "blue", "blue"]


def play(game, state, *actions):
    """Apply ``actions`` in turn; the state after the last."""
    for action in actions:
        state, _ = game.apply(state, action)
    return state


def play_effects(game, state, *actions):
    """Apply ``actions`` in turn; (state after the last, every effect in order)."""
    effects = []
    for action in actions:
        state, eff = game.apply(state, action)
        effects += eff
    return state, effects
