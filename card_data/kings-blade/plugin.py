"""The King's Blade's own checks: rules of this game that the generic validator cannot know.

Loaded by cardgen's validator (`plugin: plugin.py` in game.yml); `check(snapshot, report)`.
"""


def check(snapshot, report):
    _overflow_loops(snapshot, report)
    _end_condition_reachable(snapshot, report)


def _overflow_loops(snapshot, report):
    """An effect that pours overflowing metal into another card can cascade without end.

    Pouring into a complete card overflows it; if the metal that pours out is poured again into
    a card with a forge token, and that card is complete and bounces too (or is the same card),
    the chain never stops. The V1 feedback reports exactly this.
    """
    kinds = snapshot.game.effect_kinds
    bouncers = [
        (card, effect)
        for card in snapshot.cards
        for effect in card.effects
        if {"overflow-trigger", "pours"} <= set(kinds[effect.do].tags if effect.do in kinds else ())
    ]
    copies = sum(card.count for card, _ in bouncers)
    for card, effect in bouncers:
        partner = "another copy of itself" if card.count > 1 else "any other bouncing card"
        if copies > 1 or card.count > 1:
            report(
                "warning",
                "overflow-loop",
                f"'{card.name}': '{effect.do}' pours overflowing metal into another forged card; with "
                f"{partner} complete, the metal bounces back and forth forever (overflow loop)",
                card=card,
                loc=effect.loc,
            )


def _end_condition_reachable(snapshot, report):
    """Every card type the end condition asks for must exist in this version's cards."""
    needed = snapshot.rules.get("end_condition") or []
    for type_id in needed:
        if not snapshot.cards_of_type(type_id):
            report(
                "error",
                "end-unreachable",
                f"the game ends with a complete {type_id}, but version {snapshot.version} has no {type_id} cards",
                loc=snapshot.rule_locs.get("end_condition"),
            )


def simulation(snapshot):
    """The simulation hook (`cardgen simulate`): this version's rules engine, bots and claims."""
    from .simulation import KingsBladeSimulation

    return KingsBladeSimulation(snapshot)
