"""`cardgen serve`: a live preview of one version while the designer edits it.

`state` turns the project into the page's plain data (cards as SVG, decks, findings, the one-line
error of a broken file), re-rendering only the cards whose inputs changed; `server` serves that
data and the page on loopback and pushes each update to open pages as server-sent events;
`watch` runs `state.refresh` whenever a source file changes.
"""
