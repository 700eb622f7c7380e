"""Render stage: a snapshot's cards -> SVG faces (cards) -> vector PDF and PNG (rasterise)."""
