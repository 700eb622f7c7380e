"""`cardgen simulate`: the generic side of the playtest simulator.

A game's plug-in supplies the rules engine (`simulation(snapshot)`, see contract.py); this package
runs it: seeded games over worker processes (runner), counted into figures with confidence
intervals (stats), shown as text (text) or as a self-contained HTML page with plots (report).
"""
