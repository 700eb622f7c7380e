"""Exports for other tools: Tabletop Simulator saved objects (`tts`) and print-service PNGs (`printpng`).

Both render from the cards' SVG faces at exactly the pixel size they need (`images`), through
the build's render cache, and write deterministic files atomically.
"""
