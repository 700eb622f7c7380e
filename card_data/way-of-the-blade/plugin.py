"""Way of the Blade's own checks: the 44-card duel deck and the first deal.

The deck is a standard deck cut down: each suit holds every rank of the `ranks` rule exactly
once (ace to ten and the jack; no queens or kings). The jack is printed as The Tribune and the
ace as The Hag. The first hand deals `first_deal` cards to each of the four players, so the deck
must hold them all. Loaded by cardgen's validator (`plugin: plugin.py` in game.yml).
"""

DECK = "duel"
RANK_NAMES = {1: "ace", 11: "jack", 12: "queen", 13: "king"}
NAMED_RANKS = {1: "hag", 11: "tribune"}  # seed: "Bower cards are called 'The Tribune' and Aces 'The Hag'"


def check(snapshot, report):
    _composition(snapshot, report)
    _named_cards(snapshot, report)
    _first_deal(snapshot, report)


def _rank(rank):
    return RANK_NAMES.get(rank, str(rank))


def _composition(snapshot, report):
    """Every (rank, suit) of ranks x suits once; nothing else (a queen, a second 7 of hearts)."""
    ranks = snapshot.rules.get("ranks") or []
    suits = {sid: s.name for sid, s in snapshot.symbols.items() if s.kind == "suit"}
    where = snapshot.rule_locs.get("ranks")
    seen = {}
    for card in snapshot.cards_in_deck(DECK):
        if card.count == 0:
            continue
        key = (card.fields.get("rank"), card.fields.get("suit"))
        if key[0] not in ranks:
            allowed = ", ".join(_rank(r) for r in ranks)
            report.error("wotb-rank", f"'{card.name}': a {_rank(key[0])} is not part of the Way of the Blade "
                         f"deck (ranks: {allowed})", card=card, loc=card.loc_of("rank"))
        elif key in seen or card.count > 1:
            first = seen.get(key, card)
            report.error("wotb-duplicate", f"'{card.name}': the {_rank(key[0])} of {suits.get(key[1], key[1])} "
                         f"is printed more than once (also card '{first.id}', count {card.count})",
                         card=card, loc=card.loc_of("count") if card.count > 1 else card.loc)
        seen.setdefault(key, card)
    for sid, name in suits.items():
        for rank in ranks:
            if (rank, sid) not in seen:
                report.error("wotb-missing", f"the duel deck has no {_rank(rank)} of {name} "
                             f"(every suit holds each rank of `ranks` once)", loc=where)


def _named_cards(snapshot, report):
    """Jacks are The Tribune, aces The Hag, and no other card carries those names."""
    for card in snapshot.cards_in_deck(DECK):
        rank, face = card.fields.get("rank"), card.fields.get("face")
        expected = NAMED_RANKS.get(rank)
        if face != expected:
            named = snapshot.symbols.get(expected)
            wanted = f"printed as {named.name if named else expected}" if expected else "a plain number card"
            report.error("wotb-named-card", f"'{card.name}': a {_rank(rank)} must be {wanted}",
                         card=card, loc=card.loc_of("face") if face else card.loc_of("rank"))


def _first_deal(snapshot, report):
    """The first hand deals every player `first_deal` cards from the duel deck."""
    players = snapshot.game.file.players.max
    per_player = snapshot.rules.get("first_deal") or 0
    needed, held = players * per_player, snapshot.deck_size(DECK)
    if needed > held:
        report.error("wotb-first-deal", f"the first deal needs {players} players x {per_player} cards = "
                     f"{needed} cards, but the duel deck holds only {held}",
                     loc=snapshot.rule_locs.get("first_deal"))
