"""The questions a designer asks of One True King, answered as claims measured in the games.

- "Moving first makes up for the lower sum: neither player has the advantage." Seat 1 (the player
  without the set-up advantage, who moves first) against a fair half of the finished games:
  stats.rate_is_share, the exact binomial test; a significant difference refutes it, none leaves it
  inconclusive (games cannot prove there is no difference).
- "The spare cards always bring the difference down to the advantage limit." One game whose spare
  cards ran out above the limit refutes it (stats.never); with none, the one-sided binomial test
  that it happens in under 1% of games.
Each names the data choices it rests on (notes.choices of the version).
"""

from __future__ import annotations

from typing import Any

from cardgen.simulate import stats
from cardgen.simulate.contract import measured_claim as _claim


def answer_all(sim, ask) -> list[dict[str, Any]]:
    r = ask.run()
    first = r["seat_win_rate"][0]
    finished = r["ended"]["count"]
    seat_rate = "-" if first["rate"] is None else f"{100 * first['rate']:.1f}%"
    limit, spare = sim.table["limit"], sim.table["spare"]
    ran = r["set_up"]["spares_ran_out"]["games"]
    return [
        _claim(ask, "first-player-fair", "Moving first makes up for the lower sum: neither player has the advantage.",
               figure=f"seat 1 (no advantage, moves first) won {seat_rate} of {finished} finished games",
               evidence=stats.rate_is_share(first["wins"], finished, 0.5, label="seat 1 win rate - 1/2"),
               rests_on=(("set_up_sums",), ("equal_sums",))),
        _claim(ask, "spares-enough", f"The {spare} spare cards always bring the difference down to {limit} or less.",
               figure=f"the spare cards ran out above the limit in {ran} of {r['games']} games",
               evidence=stats.never(ran, r["games"], label="games that began above the limit"),
               rests_on=(("set_up_sums",), ("overwrite",))),
    ]
