"""Issue 15: The King's Blade's rules engine, rule by rule and effect by effect, on the real versions.

Each test sets a table up from a resolved version (the same data the cards are printed from),
puts metals and cards where the rule needs them, and checks what the engine does.
"""

from __future__ import annotations

import dataclasses
from importlib import import_module
from random import Random
from types import SimpleNamespace

import pytest
from conftest import ROOT

from cardgen.data.plugin import load_plugin
from cardgen.data.project import load_project
from cardgen.data.snapshot import Effect
from cardgen.data.versions import load_game, resolve


def _modules():
    plugin = load_plugin(ROOT / "card_data" / "kings-blade" / "plugin.py")
    package = plugin.__name__.rpartition(".")[0]
    return SimpleNamespace(**{name: import_module(f"{package}.{name}") for name in ("engine", "bots", "claims")})


KB = _modules()
E = KB.engine


def snapshot(version: str):
    project = load_project(ROOT)
    return resolve(project, load_game(project, "kings-blade"), version)


TABLES = {v: E.compile_table(snapshot(v)) for v in ("1", "2", "3", "3.1")}


class Scripted:
    """A bot that does exactly what the test tells it."""

    name = "scripted"

    def __init__(self, forge="keep", action=("pass",), extra=None, out=0, end=False, restock=False):
        self._forge, self._action, self._extra, self._out = forge, action, list(extra or []), out
        self._end, self._restock = end, restock

    def forge(self, t, p):
        return p.token if self._forge == "keep" else self._forge

    def wants_free_restock(self, t, p):
        return self._restock

    def action(self, t, p):
        return self._action

    def extra_pour(self, t, p):
        return self._extra.pop(0) if self._extra else None

    def overflow_choice(self, t, pourer, part):
        return self._out

    def bounce_target(self, t, player, metal, options):
        return options[0]

    def wants_end(self, t, p):
        return self._end

    def pick_blade(self, t, p, shown):
        self.shown = len(shown)  # how many blades lay face up when this player picked
        return 0


def table(version: str, players: int = 2, bots=None, data=None):
    data = data or TABLES[version]
    cards = [E.CardRule(i, d) for i, d in enumerate(data["parts"])]
    bots = bots or [Scripted() for _ in range(players)]
    return E.Table(data, cards, Random(7), bots)


def metal(t_or_version, name: str) -> int:
    data = TABLES[t_or_version] if isinstance(t_or_version, str) else t_or_version
    return data["metals"].index(name)


def give(t, player, card_id: str, metals: list[str], version: str, token: bool = False):
    rule = next(c for c in t.cards if c.id == card_id)
    part = E.Part(rule, player.seat)
    part.metals = [metal(version, m) for m in metals]
    part.refresh()
    player.take(part)
    if token:
        player.token = part
    return part


def synthetic(version: str, effects: list[tuple[str, str, int]], points=2, needs=3, ctype="hilt"):
    """A card with the given effects ((kind, metal, amount)), as compile_table would give it."""
    t = TABLES[version]
    rows = [(kind, 1 << metal(version, m), amount) for kind, m, amount in effects]
    return E.CardRule(999, {"id": "test-card", "name": "Test Card", "type": ctype, "points": points,
                            "needs": needs, "effects": rows}), t


def own(t, player, rule, metals, version, token=False):
    part = E.Part(rule, player.seat)
    part.metals = [metal(version, m) for m in metals]
    part.refresh()
    player.take(part)
    if token:
        player.token = part
    return part


# --- the version's data --------------------------------------------------------------------------


def test_table_reads_counts_and_rules_from_each_version():
    assert [TABLES[v]["mine"].count(metal(v, "elvish")) for v in ("1", "2", "3", "3.1")] == [5, 10, 10, 10]
    assert [len(TABLES[v]["mine"]) for v in ("1", "2", "3.1")] == [60, 60, 60]
    assert len(TABLES["1"]["blades"]) == 6 and len(TABLES["2"]["market"]) == 20
    assert [TABLES[v]["rules"]["hand_limit"] for v in ("1", "2", "3", "3.1")] == [None, 4, 3, 3]
    assert [TABLES[v]["rules"]["end_condition"] for v in ("1", "2", "3")] == [[], ["blade", "hilt"], ["blade", "hilt", "upgrade"]]
    katana = {v: next(p for p in TABLES[v]["parts"] if p["id"] == "katana-hilt") for v in ("2", "3")}
    assert (katana["2"]["points"], katana["2"]["needs"]) == (1, 4)
    assert (katana["3"]["points"], katana["3"]["needs"]) == (3, 3)


def test_set_up_deals_a_blade_and_the_starting_hand():
    t = table("3.1", players=4)
    assert all(len(p.parts) == 1 and p.parts[0].card.type == "blade" for p in t.players)
    assert all(len(p.hand) == 3 for p in t.players)
    assert len(t.mine) == 60 - 12 and len(t.market) == 4
    assert len(t.market_pile) == len(TABLES["3.1"]["market"]) - 4


def test_inert_metal_triggers_nothing():
    snap = snapshot("2")
    card = snap.card("arming-sword")
    extra = Effect(do="points", when="steel", params={"amount": 5}, loc=card.loc)
    edited = dataclasses.replace(card, effects=[*card.effects, extra])
    snap = dataclasses.replace(snap, cards=[edited if c.id == card.id else c for c in snap.cards])
    data = E.compile_table(snap)
    sword = next(p for p in data["parts"] if p["id"] == "arming-sword")
    assert ("points", 0, 5) in sword["effects"]  # grey steel is inert from V2 on: the effect never fires
    v1 = next(p for p in TABLES["1"]["parts"] if p["id"] == "arming-sword")
    assert ("points", 1 << metal("1", "steel"), 1) in v1["effects"]


def test_unknown_effect_kind_is_named():
    snap = snapshot("3.1")
    card = snap.card("rapier")
    odd = dataclasses.replace(card, effects=[Effect(do="teleport", when="elvish", params={}, loc=card.loc)])
    snap = dataclasses.replace(snap, cards=[odd if c.id == card.id else c for c in snap.cards])
    with pytest.raises(E.UnknownEffect, match="card 'rapier': effect 'teleport' has no simulation rule"):
        E.compile_table(snap)


# --- overflow ------------------------------------------------------------------------------------


def test_overflow_earliest_out_goes_to_the_bottom_of_the_mine():
    t = table("2")
    a, b = t.players
    part = give(t, b, "shortsword-hilt", ["dwarvish", "orcish", "steel"], "2", token=True)
    a.hand = [metal("2", "elvish")]
    mine_before = len(t.mine)
    t.pour(a, 0, part)
    assert [TABLES["2"]["metals"][m] for m in part.metals] == ["orcish", "steel", "elvish"]
    assert t.mine[0] == metal("2", "dwarvish") and len(t.mine) == mine_before + 1
    assert (t.overflows, t.sabotage_overflows) == (1, 1)


def test_overflow_pourer_chooses_in_v1():
    t = table("1", bots=[Scripted(out=1), Scripted()])
    a, b = t.players
    part = give(t, b, "katana-hilt", ["dwarvish", "elvish", "steel"], "1", token=True)
    a.hand = [metal("1", "orcish")]
    t.pour(a, 0, part)
    assert [TABLES["1"]["metals"][m] for m in part.metals] == ["dwarvish", "steel", "orcish"]
    assert t.mine[0] == metal("1", "elvish")


def test_the_saboteur_takes_the_metal_that_costs_most():
    t = table("1")
    a, b = t.players
    part = give(t, b, "flamberge", ["steel", "steel", "orcish", "elvish", "steel"], "1", token=True)
    saboteur = KB.bots.make_bot("saboteur")
    # Flamberge: orcish +2, elvish +3; taking the elvish out costs its owner 3 points
    assert saboteur.overflow_choice(t, a, part) == 3


# --- hand, mine, forge, end ----------------------------------------------------------------------


def test_hand_limit_per_version():
    for version, limit in (("1", None), ("2", 4), ("3", 3)):
        t = table(version)
        assert t.hand_limit(t.players[0]) == limit
    t = table("3")
    player = t.players[0]
    assert t.room(player) == 0 and ("mine",) not in E.legal_actions(t, player)


def test_take_one_versus_fill_hand():
    t2 = table("2")
    p = t2.players[0]
    p.hand = p.hand[:1]
    assert t2.mine_action(p) == 1 and len(p.hand) == 2
    t3 = table("3")
    p = t3.players[0]
    p.hand = p.hand[:1]
    assert t3.mine_action(p) == 2 and len(p.hand) == 3


def test_forge_token_optional_or_required():
    for version, expected_empty in (("1", True), ("2", True), ("3", True), ("3.1", False)):
        t = table(version, bots=[Scripted(forge=None), Scripted(forge=None)])
        t.play(max_turns=1)
        token = t.players[0].token
        assert (token is None) is expected_empty, version
        if not expected_empty:
            assert token is t.players[0].parts[0]


def test_only_token_cards_take_pours():
    t = table("3.1")
    a, b = t.players
    hilt = give(t, b, "katana-hilt", [], "3.1")
    blade = b.parts[0]
    b.token = blade
    assert t.pour_targets(a) == [blade]
    assert hilt not in t.pour_targets(b)


def test_end_condition_per_version():
    for version, parts, can in (
        ("1", ["rapier", "katana-hilt", "gem-inlay"], False),
        ("2", ["rapier", "katana-hilt"], True),
        ("3", ["rapier", "katana-hilt"], False),
        ("3", ["rapier", "katana-hilt", "gem-inlay"], True),
    ):
        t = table(version)
        player = t.players[0]
        player.parts = []
        for card_id in parts:
            rule = next(c for c in t.cards if c.id == card_id)
            give(t, player, card_id, ["orcish"] * rule.needs, version)
        assert t.can_end(player) is can, (version, parts)


def test_a_player_ends_the_game_and_the_best_score_wins():
    t = table("2", bots=[Scripted(end=True, action=("restock",)), Scripted(action=("restock",))])
    a, b = t.players
    a.parts, b.parts = [], []
    give(t, a, "rapier", ["orcish", "orcish", "orcish"], "2")  # 2 points, no active effect
    give(t, a, "katana-hilt", ["steel"] * 4, "2")  # 1 point
    give(t, b, "greatsword", ["elvish"] * 6, "2")  # V2 Greatsword needs 6: 5 + 3 points
    record = t.play(max_turns=10)
    assert record["ended"] and record["ender"] == 0 and record["turns"] == 1
    assert record["scores"] == [3, 8] and record["winners"] == [1]


def test_games_without_an_end_stall_at_the_cap():
    t = table("1", bots=[Scripted(action=("restock",)), Scripted(action=("restock",))])
    record = t.play(max_turns=8)
    assert not record["ended"] and record["stall"] == "no end condition" and record["turns"] == 8
    t = table("3", bots=[Scripted(action=("restock",)), Scripted(action=("restock",))])
    record = t.play(max_turns=8)
    assert record["stall"] == "turn cap" and len(record["series"]["mine"]) == 4


def test_a_round_without_a_legal_action_stalls_the_game():
    for version in ("1", "3.1"):
        t = table(version)  # the scripted bots pass, as a player with no legal action does
        record = t.play(max_turns=50)
        assert (record["stall"], record["turns"], record["ended"]) == ("no legal action", 2, False)


def test_market_take_refills_and_restock_replaces_all():
    t = table("3.1")
    player = t.players[0]
    shown = list(t.market)
    next_card = t.market_pile[-1]
    part = t.take_market(player, 1)
    assert part.card is shown[1] and t.market == [shown[0], shown[2], shown[3], next_card]
    t.restock()
    assert t.market_discard == [shown[0], shown[2], shown[3], next_card] and len(t.market) == 4


# --- each effect kind ----------------------------------------------------------------------------


def test_points_count_once_and_even_when_incomplete():
    rule, _ = synthetic("3", [("points", "orcish", 1)], points=2, needs=3)
    t = table("3")
    player = t.players[0]
    player.parts = []
    part = own(t, player, rule, ["orcish", "orcish"], "3")
    assert player.score() == 1  # incomplete: the effect counts, once for two orcish
    part.metals.append(metal("3", "steel"))
    part.refresh()
    assert player.score() == 3  # complete: 2 for completion + 1


def test_points_per_different_metal():
    rule, _ = synthetic("3", [("points_per_metal", "elvish", 1)], points=0, needs=4)
    mask = sum(1 << metal("3", m) for m in ("elvish", "steel", "orcish"))
    assert E.part_score(rule, mask, 3) == 3
    assert E.part_score(rule, mask & ~(1 << metal("3", "elvish")), 3) == 0


def test_hand_limit_effect():
    t = table("2")
    player = t.players[0]
    give(t, player, "forge-bellows", ["dwarvish"], "2")  # V2 Forge Bellows: dwarvish -> hand limit +1
    assert t.hand_limit(player) == 5


def test_mine_bonus_under_take_one_and_fill_hand():
    t = table("2")
    player = t.players[0]
    give(t, player, "battle-axe", ["dwarvish"], "2")  # V2 Battle Axe: dwarvish -> take 1 extra
    player.hand = []
    assert t.mine_action(player) == 2
    rule, _ = synthetic("3", [("mine_bonus", "orcish", 1)])
    t = table("3")
    player = t.players[0]
    own(t, player, rule, ["orcish"], "3")
    player.hand = player.hand[:2]
    assert t.mine_action(player) == 2  # fill your hand (1), then the effect's extra metal: effects overrule the limit
    t = table("3", data=with_rules("3", effect_draws="within_hand_limit"))
    player = t.players[0]
    own(t, player, rule, ["orcish"], "3")
    player.hand = player.hand[:2]
    assert t.mine_action(player) == 1  # read the other way, the hand limit caps the effect too


def test_extra_pour():
    rule, _ = synthetic("3", [("extra_pour", "orcish", 1)], needs=5)
    t = table("3")
    a, _ = t.players
    part = own(t, a, rule, ["orcish"], "3", token=True)
    a.bot = Scripted(forge=part, action=("pour", 0, part), extra=[(0, part)])
    a.hand = [metal("3", "steel"), metal("3", "dwarvish")]
    t._action(a, a.bot.action(t, a))
    assert len(part.metals) == 3 and a.hand == []


def test_counts_double():
    t = table("3")
    player = t.players[0]
    part = give(t, player, "rune-etching", ["dwarvish", "steel"], "3")  # needs 3, dwarvish counts 2
    assert part.filled == 3 and part.complete


def test_market_peek():
    t = table("2")
    player = t.players[0]
    give(t, player, "pommel-stone", ["orcish"], "2")  # V2 Pommel Stone: orcish -> market peek
    assert ("top",) in E.legal_actions(t, player)
    top = t.market_pile[-1]
    assert t.take_top(player).card is top
    other = t.players[1]
    assert ("top",) not in E.legal_actions(t, other)


def test_free_restock():
    rule, _ = synthetic("3", [("free_restock", "orcish", 1)])
    t = table("3", bots=[Scripted(restock=True, action=("restock",)), Scripted()])
    player = t.players[0]
    own(t, player, rule, ["orcish"], "3")
    shown = list(t.market)
    t.play(max_turns=1)
    assert len(t.market_discard) == 8 and shown[0] in t.market_discard  # free restock, then the action's


def test_overflow_guard():
    t = table("3")
    a, b = t.players
    part = give(t, b, "guardsman-hilt", ["orcish", "steel", "steel"], "3", token=True)
    assert part not in t.pour_targets(a) and part in t.pour_targets(b)
    part.metals.pop()
    part.refresh()  # incomplete: the guard does not apply
    assert part in t.pour_targets(a)


def test_overflow_keep():
    t = table("3")
    a, b = t.players
    part = give(t, b, "scabbard", ["orcish", "steel", "dwarvish"], "3", token=True)  # needs 2: complete
    b.hand = []
    a.hand = [metal("3", "elvish")]
    t.pour(a, 0, part)
    assert b.hand == [metal("3", "orcish")]


def test_overflow_bounce_loops_between_two_mirror_hilts():
    t = table("1")
    a, b = t.players
    first = give(t, a, "mirror-hilt", ["steel"] * 3, "1", token=True)
    second = give(t, b, "mirror-hilt", ["steel"] * 3, "1", token=True)
    a.hand = [metal("1", "steel")]
    t.pour(a, 0, second)
    assert t.loops == {"mirror-hilt": 1}
    assert len(first.metals) == 3 and len(second.metals) == 3
    # one mirror hilt alone bounces into a card that does not bounce back: no loop
    t = table("1")
    a, b = t.players
    blade = a.parts[0]
    a.token = blade
    second = give(t, b, "mirror-hilt", ["steel"] * 3, "1", token=True)
    a.hand = [metal("1", "orcish")]
    t.pour(a, 0, second)
    assert t.loops == {} and metal("1", "steel") in blade.metals


def test_probe_finds_the_loop_card_only_in_v1():
    sims = {v: SimpleNamespace(table=TABLES[v], cards=[E.CardRule(i, d) for i, d in enumerate(TABLES[v]["parts"])])
            for v in ("1", "2")}
    assert KB.claims.probe_loops(sims["1"]) == ["mirror-hilt"]
    assert KB.claims.probe_loops(sims["2"]) == []


def test_sabotage_draw():
    t = table("2")
    a, b = t.players
    give(t, a, "serpent-hilt", ["orcish"], "2")  # V2 Serpent Hilt: orcish -> sabotage draw
    part = give(t, b, "katana-hilt", ["steel"] * 4, "2", token=True)
    a.hand = [metal("2", "steel")]
    t.pour(a, 0, part)
    assert len(a.hand) == 1  # poured one, drew one for the overflow


def test_forge_anywhere():
    t = table("3")
    a, b = t.players
    bellows = give(t, a, "forge-bellows", ["orcish"], "3")  # orcish -> pour here without the token
    a.token = a.parts[0]
    assert bellows in t.pour_targets(a)
    assert bellows not in t.pour_targets(b)


def test_greedy_scores_a_completing_pour_above_a_partial_one():
    t = table("3")
    player = t.players[0]
    player.parts = []
    near = give(t, player, "katana-hilt", ["steel", "steel"], "3")
    far = give(t, player, "royal-hilt", [], "3")
    greedy = KB.bots.make_bot("greedy")
    done = set()
    steel = metal("3", "steel")
    assert greedy.own_gain(t, player, near, steel, done) > greedy.own_gain(t, player, far, steel, done)


def test_the_mine_running_empty_is_recorded_with_its_round():
    t = table("1", bots=[Scripted(action=("mine",)), Scripted(action=("mine",))])
    t.mine = t.mine[:3]
    record = t.play(max_turns=6)
    # turns 1-3 draw the last three metals (round 2), turns 4-6 find the mine empty
    assert record["events"]["mine_empty"] == 2
    assert record["tallies"]["empty_mine_turns"] == 3
    assert record["series"]["mine"] == [1, 0, 0]


# --- the table rules a version sets or leaves open -------------------------------------------------

OPEN = ("blade_deal", "market_refill", "market_runs_out", "metal_discard", "mine_runs_out", "metal_order")


def with_rules(version: str, **rules):
    """The version's table with some rules set otherwise, as a version's YAML would set them."""
    snap = snapshot(version)
    return E.compile_table(dataclasses.replace(snap, rules={**snap.rules, **rules}))


def test_open_table_rules_are_the_versions_values_or_a_stated_reading():
    snap31, snap1 = snapshot("3.1"), snapshot("1")
    assert {k: TABLES["3.1"]["rules"][k] for k in OPEN} == {k: snap31.rules[k] for k in OPEN}
    assert not any("leaves it open" in a for a in TABLES["3.1"]["assumptions"])
    # version 1 answers them (the metals' order from version 2, where earliest-out overflow needs it):
    # the engine plays the versions' values and states no reading of its own
    specs = snap1.game.rule_specs
    assert {k: snap1.rules.get(k) for k in OPEN} == {k: (None if k == "metal_order" else specs[k].default) for k in OPEN}
    assert {k: TABLES["1"]["rules"][k] for k in OPEN if k != "metal_order"} == \
        {k: snap1.rules[k] for k in OPEN if k != "metal_order"}
    assert TABLES["1"]["rules"]["metal_order"] == specs["metal_order"].default  # played, never printed in V1
    assert not any("leaves it open" in a and "metal_order" not in a and specs["metal_order"].label not in a
                   for a in TABLES["1"]["assumptions"])
    # the readings of play are rules of the data too (and printed): set where the version can show
    # them; where it cannot (V1 has no hand limit and no end; from V2 no card bounces metal on)
    # the version leaves them open and the default is played without a line in the report
    played = ("effect_draws", "extra_pours", "bounce_target", "end_timing", "ties")
    assert {k: snap1.rules.get(k) for k in played} == {
        "effect_draws": None, "extra_pours": "any_card", "bounce_target": "owner_chooses", "end_timing": None,
        "ties": "shared"}
    assert {k: snap31.rules.get(k) for k in played} == {
        "effect_draws": "beyond_hand_limit", "extra_pours": "any_card", "bounce_target": None, "end_timing": "any_time",
        "ties": "shared"}
    for rule in played:
        assert set(E.TABLE_RULES[rule]) == set(specs[rule].values)
        assert TABLES["1"]["rules"][rule] == (snap1.rules.get(rule) or specs[rule].default)


# --- every reading of play is a rule value: flipping it changes the play ----------------------------


def test_effects_overrule_the_hand_limit_battle_axe_draws_its_extra_metal():
    """3.1, hand limit 3, fill-your-hand: a full draw of 3 plus the mine bonus's extra metal."""
    for version in ("3", "3.1"):
        rule = next(c for c in table(version).cards if c.ability.get("mine_bonus"))
        for value, expected in (("beyond_hand_limit", 4), ("within_hand_limit", 3)):
            t = table(version, data=with_rules(version, effect_draws=value))
            p = t.players[0]
            p.hand = []
            trigger = (rule.ability["mine_bonus"][0][0] & -rule.ability["mine_bonus"][0][0]).bit_length() - 1
            part = E.Part(rule, 0)
            part.metals = [trigger]
            part.refresh()
            p.take(part)
            assert t.mine_action(p) == expected, (version, value)


def test_effects_overrule_the_hand_limit_for_overflow_to_hand_and_sabotage_draws():
    keeper = next(c for c in table("3.1").cards if c.ability.get("overflow_keep"))
    kept = {}
    for value in ("beyond_hand_limit", "within_hand_limit"):
        t = table("3.1", data=with_rules("3.1", effect_draws=value))
        owner, other = t.players
        trigger = (keeper.ability["overflow_keep"][0][0] & -keeper.ability["overflow_keep"][0][0]).bit_length() - 1
        part = E.Part(keeper, 0)
        while not part.complete:
            part.metals.append(trigger)
            part.refresh()
        owner.parts, owner.token = [part], part
        owner.hand = [0, 0, 0]  # full: the limit is 3
        other.hand = [0]
        t.pour(other, 0, part)
        kept[value] = len(owner.hand)
    assert kept == {"beyond_hand_limit": 4, "within_hand_limit": 3}


def test_any_metal_includes_grey_steel():
    """"A metal of any kind triggers the effect" (the rulebook): from V2 on steel has no effects of
    its own, yet an any-metal effect is on with steel alone."""
    steel = 1 << metal("2", "steel")
    any_effects = [(c["id"], m) for c in TABLES["2"]["parts"] for kind, m, _ in c["effects"]
                   if kind == "points" and m == (1 << len(TABLES["2"]["metals"])) - 1]
    assert any_effects, "version 2 has a card whose effect any metal triggers"
    card_id, mask = any_effects[0]
    assert mask & steel
    rule = next(c for c in table("2").cards if c.id == card_id)
    assert E.part_score(rule, steel, 1) >= 1  # steel alone in it: the point counts


def test_extra_pours_any_card_or_the_same_card():
    rule, _ = synthetic("3.1", [("extra_pour", "steel", 1)])
    poured = {}
    for value in ("any_card", "same_card"):
        t = table("3.1", data=with_rules("3.1", extra_pours=value))
        p, q = t.players
        mine_part = own(t, p, rule, ["steel"], "3.1", token=True)
        theirs = own(t, q, rule, [], "3.1", token=True)
        p.hand = [metal("3.1", "steel"), metal("3.1", "steel")]
        class LastTarget(Scripted):
            def extra_pour(self, t, player):  # the last card the rules let it pour into
                return 0, t.pour_targets(player)[-1]

        p.bot = LastTarget()
        t._action(p, ("pour", 0, mine_part))
        poured[value] = (len(mine_part.metals), len(theirs.metals))
    assert poured == {"any_card": (2, 1), "same_card": (3, 0)}


def test_bounce_target_owner_chooses_or_next_in_turn():
    mirror = next(c for c in table("1").cards if c.ability.get("overflow_bounce"))
    trigger = (mirror.ability["overflow_bounce"][0][0] & -mirror.ability["overflow_bounce"][0][0]).bit_length() - 1
    got = {}
    for value in ("owner_chooses", "next_in_turn"):
        class Last(Scripted):
            def bounce_target(self, t, player, metal, options):
                return options[-1]

        t = table("1", players=3, bots=[Last(), Last(), Last()], data=with_rules("1", bounce_target=value))
        a, b, c = t.players
        source = E.Part(mirror, 0)
        while not source.complete:
            source.metals.append(trigger)
            source.refresh()
        a.parts, a.token = [source], source
        rule, _ = synthetic("1", [("points", "steel", 1)], needs=5)
        tb, tc = own(t, b, rule, [], "1", token=True), own(t, c, rule, [], "1", token=True)
        b.hand = [metal("1", "steel")]
        t.pour(b, 0, source)
        got[value] = (len(tb.metals), len(tc.metals))
    assert got == {"owner_chooses": (0, 1), "next_in_turn": (1, 0)}


def test_end_timing_any_time_or_own_turn():
    ended = {}
    for value in ("any_time", "own_turn"):
        t = table("3.1", data=with_rules("3.1", end_timing=value), bots=[Scripted(), Scripted(end=True)])
        p, q = t.players
        for ctype in ("blade", "hilt", "upgrade"):
            rule = next(c for c in t.cards if c.type == ctype)
            part = E.Part(rule, 1)
            part.metals, part.filled = [0] * rule.needs, rule.needs
            q.take(part)
        ended[value] = t._who_ends(0)  # after seat 1's action: may seat 2 end?
    assert ended == {"any_time": 1, "own_turn": None}


def test_ties_shared_or_nobody_wins():
    won = {}
    for value in ("shared", "nobody_wins"):
        t = table("3.1", data=with_rules("3.1", ties=value))
        won[value] = t._record(None, False, [])["winners"]  # nobody has a point: a tie of everyone
    assert won == {"shared": [0, 1], "nobody_wins": []}


def test_a_rule_value_the_engine_cannot_play_is_named():
    with pytest.raises(E.UnknownEffect, match="rule 'market_refill': value 'never' has no simulation rule in the "
                                              "engine \\(known: immediately, on_restock\\)"):
        with_rules("3.1", market_refill="never")


def test_blade_draft_shows_one_more_than_players_and_the_last_player_picks_first():
    bots = [Scripted() for _ in range(4)]
    t = table("3.1", bots=bots, data=with_rules("3.1", blade_deal="draft"))
    assert [b.shown for b in bots] == [2, 3, 4, 5]  # seat 4 saw all five, seat 1 the last two
    blades = [p.parts[0].card for p in t.players]
    assert all(c.type == "blade" for c in blades) and sum(len(p.parts) for p in t.players) == 4
    dealt = table("3.1", players=4)  # deal_random, as 3.1 says: nobody is asked
    assert all(len(p.parts) == 1 and p.parts[0].card.type == "blade" for p in dealt.players)


def test_greedy_drafts_the_most_promising_blade():
    t = table("3.1", players=4)
    blades = sorted({c.index: c for c in t.cards if c.type == "blade"}.values(), key=lambda c: c.appeal)
    greedy = KB.bots.make_bot("greedy")
    assert blades[greedy.pick_blade(t, t.players[0], blades)] is blades[-1]


def test_market_refill_on_restock_leaves_the_place_empty():
    t = table("3.1", data=with_rules("3.1", market_refill="on_restock"))
    shown = list(t.market)
    t.take_market(t.players[0], 1)
    assert t.market == [shown[0], shown[2], shown[3]]
    t.restock()
    assert len(t.market) == 4 and t.market_discard == [shown[0], shown[2], shown[3]]


def test_market_that_stays_empty_is_not_reshuffled_or_restocked():
    t = table("3.1", data=with_rules("3.1", market_runs_out="stays_empty"))
    t.market_pile = t.market_pile[:2]
    t.restock()  # two cards from the pile; the four shown go to the discards
    assert len(t.market) == 2 and len(t.market_discard) == 4 and t.market_pile == []
    assert not t.can_restock() and ("restock",) not in E.legal_actions(t, t.players[0])
    t.take_market(t.players[0], 0)
    assert len(t.market) == 1  # nothing comes from the discards
    again = table("3.1")  # reshuffle, as 3.1 says
    again.market_pile = again.market_pile[:2]
    again.restock()
    assert len(again.market) == 4 and again.can_restock()


def test_discarded_metal_is_shuffled_into_the_mine():
    positions = {}
    for reading in ("mine_bottom", "mine_shuffle"):
        t = table("3.1", data=with_rules("3.1", metal_discard=reading))
        size = len(t.mine)
        found = []
        for i in range(20):
            t.mine = [0] * size
            t._discard(1)
            found.append(t.mine.index(1))
            assert len(t.mine) == size + 1
        positions[reading] = found
    assert set(positions["mine_bottom"]) == {0}  # under the pile: drawn last
    assert len(set(positions["mine_shuffle"])) > 5


def test_an_empty_mine_ends_the_game_at_once_under_game_ends():
    bots = [Scripted(action=("mine",)), Scripted(action=("mine",))]
    t = table("1", bots=bots, data=with_rules("1", mine_runs_out="game_ends"))  # V1: no hand limit
    t.mine = t.mine[:3]
    record = t.play(max_turns=10)
    assert (record["ended"], record["ender"], record["stall"], record["turns"]) == (True, None, None, 3)
    assert record["events"]["mine_empty"] == 2
    from cardgen.simulate import stats

    totals = stats.Totals(2)
    totals.add(record)  # a game a rule ended: ended, and no player's
    assert totals.ended == 1 and sum(totals.ended_by.values()) == 0 and not totals.stalls
    t = table("1", bots=[Scripted(action=("mine",)), Scripted(action=("mine",))])  # take_what_is_left
    t.mine = t.mine[:3]
    record = t.play(max_turns=10)
    assert (record["ended"], record["stall"], record["turns"]) == (False, "no end condition", 10)


def test_the_engines_shuffle_draws_as_pythons():
    # engine.shuffle spares rng.shuffle's calls per card: the same seed must give the same order
    # and leave the generator in the same state (every later draw of the game depends on it)
    for length in (0, 1, 2, 6, 20, 60, 129):
        for seed in ("1:0", "3:17", "7:99999"):
            ours, theirs = Random(seed), Random(seed)
            a, b = list(range(length)), list(range(length))
            E.shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b and ours.getstate() == theirs.getstate()
