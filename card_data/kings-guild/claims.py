"""The questions a designer asks of The King's Guild, answered as claims measured in the games.

- "No Guild wins more than its share": one claim per Guild, its win rate in finished games against
  1/players (stats.rate_against_share, exact binomial, the claim's side below or at the share);
  Holm's correction over the run's claims. A significant excess refutes it.
- "Playing first gives no advantage": seat 1's wins against 1/players (stats.rate_is_share); a
  significant difference either way refutes it, none leaves it inconclusive.
- "The game always reaches the Offering": one game whose face-up Missions all need a precious
  resource nobody can gather, when the turn cap stops it, refutes it (stats.never).
Each names the data choices it rests on (notes.choices of the version).
"""

from __future__ import annotations

from typing import Any

from cardgen.simulate import stats
from cardgen.simulate.contract import measured_claim as _claim


def answer_all(sim, ask) -> list[dict[str, Any]]:
    r = ask.run()
    players = r["players"]
    finished = r["ended"]["count"]
    out = []
    for name, g in r["guild_wins"].items():
        rate = "-" if g["rate"] is None else f"{100 * g['rate']:.1f}%"
        out.append(_claim(ask, f"guild-{g['id']}-fair", f"The {name} wins no more than its share (1/{players}).",
                          figure=f"{name} won {rate} of the {g['games']} finished games it played",
                          evidence=stats.rate_against_share(g["wins"], g["games"], 1 / players, more=False,
                                                            label="1/players - win rate"),
                          rests_on=(("gilde",),)))
    first = r["seat_win_rate"][0]
    seat_rate = "-" if first["rate"] is None else f"{100 * first['rate']:.1f}%"
    out.append(_claim(ask, "first-player-fair", "Playing first gives no advantage.",
                      figure=f"seat 1 won {seat_rate} of {finished} finished games",
                      evidence=stats.rate_is_share(first["wins"], finished, 1 / players, label="seat 1 win rate - 1/players"),
                      rests_on=(("preparazione",),)))
    locked = sum(n for reason, n in r["ended"]["stalled"].items() if reason.startswith("Mission row locked"))
    out.append(_claim(ask, "never-locked", "The game always reaches the Offering: the Mission row never locks.",
                      figure=f"{locked} of {r['games']} games stopped with every face-up Mission needing a precious "
                             "resource nobody could gather",
                      evidence=stats.never(locked, r["games"], label="games whose Mission row locked"),
                      rests_on=(("risorse", "pregiate"), ("magic arcaneum",))))
    return out
